import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Testing

@testable import MultiAuthReverseProxy

/// Every transition of a connection's exchanges, with no channel: the events a client, the
/// decision and the upstream bring, and what the handler is asked to do. Expected states are
/// written from RFC 9112 §9.3.2 (pipelined answers in request order) and §9.6 (close).
@Suite struct ExchangeStateMachineTests {
    typealias Machine = ExchangeStateMachine

    static func head(_ path: String = "/", close: Bool = false) -> HTTPRequestPart {
        var fields = HTTPFields()
        if close { fields[.connection] = "close" }
        return .head(HTTPRequest(method: .get, scheme: nil, authority: "example.com", path: path, headerFields: fields))
    }

    static let bytes = ByteBuffer(string: "abc")

    static func exchange(_ number: Int, _ request: Machine.Request, _ response: Machine.Response, closes: Bool = false) -> Machine.State {
        .exchanging(Machine.Exchange(number: number, request: request, response: response, closesConnection: closes))
    }

    /// A machine whose first exchange has read its whole request.
    static func requestRead() -> Machine {
        var machine = Machine()
        _ = machine.received(head())
        _ = machine.received(.end(nil))
        return machine
    }

    // MARK: The request's side

    @Test func aHeadStartsAnExchangeItsBodyIsDeliveredAndItsEndEndsTheRequest() {
        var machine = Machine()
        guard case .start(1, let head) = machine.received(Self.head("/a")) else {
            Issue.record("no start")
            return
        }
        #expect(head.path == "/a" && machine.state == Self.exchange(1, .receiving, .deciding) && machine.current == 1)
        let r1 = machine.received(.body(Self.bytes))
        #expect(r1 == .deliver(Self.bytes))
        let r2 = machine.received(.end(nil))
        #expect(r2 == .endRequest)
        #expect(machine.state == Self.exchange(1, .complete, .deciding))
    }

    @Test func aHeadThatSaysCloseMarksItsExchange() {
        var machine = Machine()
        _ = machine.received(Self.head(close: true))
        #expect(machine.state == Self.exchange(1, .receiving, .deciding, closes: true))
    }

    @Test func betweenExchangesOnlyAHeadIsTaken() {
        var machine = Machine()
        let r3 = machine.received(.body(Self.bytes))
        let r4 = machine.received(.end(nil))
        #expect(r3 == Machine.Action.none && r4 == Machine.Action.none)
        #expect(machine.state == .idle)
    }

    /// RFC 9112 §9.3.2: a request pipelined behind one under way is held, not started.
    @Test func partsPipelinedBehindAnExchangeAreHeldInOrder() {
        var machine = Self.requestRead()
        let r5 = machine.received(Self.head("/b"))
        #expect(r5 == Machine.Action.none)
        let r6 = machine.received(.end(nil))
        #expect(r6 == Machine.Action.none)
        let r7 = machine.refused("no Host")
        #expect(r7 == Machine.Action.none)
        #expect(machine.held == [.part(Self.head("/b")), .part(.end(nil)), .refused(problem: "no Host")])
        #expect(!machine.readsNow(bodyPaused: false), "reading pauses while parts are held")
    }

    @Test func readingGoesOnUnlessPartsAreHeldOrTheBodyIsPaused() {
        var machine = Machine()
        #expect(machine.readsNow(bodyPaused: true), "between exchanges")
        _ = machine.received(Self.head())
        #expect(machine.readsNow(bodyPaused: false) && !machine.readsNow(bodyPaused: true))
    }

    // MARK: Refused heads and broken requests

    @Test func aRefusedHeadBetweenExchangesIsAnsweredThenTheConnectionEnds() {
        var machine = Machine()
        let r8 = machine.refused("two Host fields")
        #expect(r8 == .answerRefusal(problem: "two Host fields"))
        #expect(machine.state == Self.exchange(1, .complete, .deciding, closes: true))
        let r9 = machine.answerStarts(relayed: false)
        #expect(r9, "the 400 says Connection: close")
        let r10 = machine.answerEnds()
        #expect(r10 && machine.state == .closing)
        let r11 = machine.received(Self.head())
        let r12 = machine.refused("again")
        #expect(r11 == Machine.Action.none && r12 == Machine.Action.none)
    }

    @Test func aBrokenBodyFailsAndEndsTheConnectionAfterItsAnswer() {
        var machine = Machine()
        _ = machine.received(Self.head())
        guard case .failBody = machine.requestBroke() else {
            Issue.record("no failBody")
            return
        }
        #expect(machine.state == Self.exchange(1, .receiving, .deciding, closes: true))
        var read = Self.requestRead()
        let r13 = read.requestBroke()
        #expect(r13 == Machine.Action.none, "a request read whole cannot break")
    }

    // MARK: The client closing, the server shutting down

    @Test func anIdleConnectionClosesWhenTheClientStopsSending() {
        var machine = Machine()
        let r14 = machine.inputClosed()
        #expect(r14 == .close)
    }

    @Test func aBodyStillArrivingCannotEndWhenTheClientStopsSending() {
        var machine = Machine()
        _ = machine.received(Self.head())
        guard case .failBody = machine.inputClosed() else {
            Issue.record("no failBody")
            return
        }
        #expect(machine.state == Self.exchange(1, .receiving, .deciding, closes: true))
    }

    @Test func anExchangeWhoseRequestIsReadIsAnsweredThenTheConnectionCloses() {
        var machine = Self.requestRead()
        let r15 = machine.inputClosed()
        #expect(r15 == Machine.Action.none && machine.endsWhenIdle)
        let r16 = machine.answerStarts(relayed: false)
        let r17 = machine.answerEnds()
        #expect(!r16 && !r17)
        let r18 = machine.finishIfDone()
        #expect(r18 == [] && machine.closesWhenIdle)
    }

    @Test func quiescingClosesAnIdleConnectionAndMarksAnAnswerNotYetBegun() {
        var idle = Machine()
        let r19 = idle.quiesce()
        #expect(r19 == .close)
        var deciding = Self.requestRead()
        let r20 = deciding.quiesce()
        #expect(r20 == Machine.Action.none && deciding.state == Self.exchange(1, .complete, .deciding, closes: true))
        var writing = Self.requestRead()
        _ = writing.answerStarts(relayed: false)
        _ = writing.quiesce()
        #expect(writing.state == Self.exchange(1, .complete, .writing(relayed: false)), "an answer under way is not changed")
        let r21 = writing.answerEnds()
        let r22 = writing.finishIfDone()
        #expect(!r21 && r22 == [] && writing.closesWhenIdle)
    }

    // MARK: The answer's side

    @Test func anExchangeEndsOnceBothSidesHaveAndGivesBackWhatWasHeld() {
        var machine = Machine()
        _ = machine.received(Self.head())
        _ = machine.received(Self.head("/pipelined"))  // ignored: a head cannot come in a body
        _ = machine.answerStarts(relayed: false)
        let r23 = machine.answerEnds()
        let r24 = machine.finishIfDone()
        #expect(!r23 && r24 == nil, "the request has not ended")
        _ = machine.received(.end(nil))
        _ = machine.received(Self.head("/b"))
        let r25 = machine.finishIfDone()
        #expect(r25 == [.part(Self.head("/b"))] && machine.state == .idle && machine.held.isEmpty)
        guard case .start(2, _) = machine.received(Self.head("/b")) else {
            Issue.record("the next exchange is 2")
            return
        }
    }

    @Test func anAnswerThatClosesDropsWhatWasHeld() {
        var machine = Machine()
        _ = machine.received(Self.head(close: true))
        _ = machine.received(.end(nil))
        _ = machine.received(Self.head("/b"))
        let r26 = machine.answerStarts(relayed: false)
        #expect(r26)
        let r27 = machine.answerEnds()
        #expect(r27 && machine.state == .closing && machine.held.isEmpty && machine.current == nil)
        let r28 = machine.finishIfDone()
        #expect(r28 == nil)
    }

    /// An answer of our own before a streamed body was read leaves that body on the
    /// connection: the connection ends with the answer. A relayed answer does not.
    @Test func anOwnAnswerBeforeTheBodyWasReadClosesTheConnection() {
        var own = Machine()
        _ = own.received(Self.head())
        let r29 = own.answerStarts(relayed: false, leavesBodyUnread: true)
        #expect(r29)
        var relayed = Machine()
        _ = relayed.received(Self.head())
        relayed.sentUpstream(reused: false)
        let r30 = relayed.answerStarts(relayed: true)
        #expect(!r30)
        var read = Self.requestRead()
        let r31 = read.answerStarts(relayed: false, leavesBodyUnread: true)
        #expect(!r31, "a body read whole leaves nothing")
    }

    // MARK: The upstream's side

    @Test func theUpstreamsAnswerIsAwaitedOnceSentAndUntilItEnds() {
        var machine = Self.requestRead()
        #expect(!machine.awaitsUpstream)
        machine.sentUpstream(reused: false)
        #expect(machine.awaitsUpstream && !machine.answerStarted)
        _ = machine.answerStarts(relayed: true)
        #expect(machine.awaitsUpstream && machine.answerStarted)
        _ = machine.answerEnds()
        #expect(!machine.awaitsUpstream && machine.answerStarted)
    }

    /// A kept-alive upstream connection closed as the request went out: sent once more, at
    /// most once, and only before any of the answer came.
    @Test func aRequestOnAReusedConnectionIsSentOnceMoreAtMost() {
        var machine = Self.requestRead()
        machine.sentUpstream(reused: true)
        let r32 = machine.resendsAfterUpstreamClosed()
        #expect(r32 && machine.state == Self.exchange(1, .complete, .upstream(reused: false)))
        let r33 = machine.resendsAfterUpstreamClosed()
        #expect(!r33)
        var fresh = Self.requestRead()
        fresh.sentUpstream(reused: false)
        let r34 = fresh.resendsAfterUpstreamClosed()
        #expect(!r34)
        var started = Self.requestRead()
        started.sentUpstream(reused: true)
        _ = started.answerStarts(relayed: true)
        let r35 = started.resendsAfterUpstreamClosed()
        #expect(!r35)
    }

    /// A failed upstream or a rejected answer retried: the exchange is decided again, and an
    /// answer of its own comes next.
    @Test func aFailedOrRejectedUpstreamAnswerIsDecidedAgain() {
        var machine = Self.requestRead()
        machine.sentUpstream(reused: false)
        machine.decidingAgain()
        #expect(machine.state == Self.exchange(1, .complete, .deciding) && !machine.awaitsUpstream)
        _ = machine.answerStarts(relayed: false)
        let r36 = machine.answerEnds()
        let r37 = machine.finishIfDone()
        #expect(!r36 && r37 == [])
    }

    @Test func eventsOfAClosingConnectionChangeNothing() {
        var machine = Machine()
        _ = machine.refused("bad")
        _ = machine.answerStarts(relayed: false)
        _ = machine.answerEnds()
        let r38 = machine.inputClosed()
        let r39 = machine.quiesce()
        #expect(r38 == Machine.Action.none && r39 == Machine.Action.none)
        let r40 = machine.requestBroke()
        let r41 = machine.answerStarts(relayed: false)
        let r42 = machine.answerEnds()
        #expect(r40 == Machine.Action.none && !r41 && !r42)
        machine.sentUpstream(reused: true)
        #expect(machine.state == .closing && machine.readsNow(bodyPaused: true))
    }
}
