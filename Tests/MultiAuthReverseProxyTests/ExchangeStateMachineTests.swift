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
        let received1 = machine.received(.body(Self.bytes))
        #expect(received1 == .deliver(Self.bytes))
        let received2 = machine.received(.end(nil))
        #expect(received2 == .endRequest)
        #expect(machine.state == Self.exchange(1, .complete, .deciding))
    }

    @Test func aHeadThatSaysCloseMarksItsExchange() {
        var machine = Machine()
        _ = machine.received(Self.head(close: true))
        #expect(machine.state == Self.exchange(1, .receiving, .deciding, closes: true))
    }

    @Test func betweenExchangesOnlyAHeadIsTaken() {
        var machine = Machine()
        let received1 = machine.received(.body(Self.bytes))
        let received2 = machine.received(.end(nil))
        #expect(received1 == Machine.Action.none && received2 == Machine.Action.none)
        #expect(machine.state == .idle)
    }

    /// RFC 9112 §9.3.2: a request pipelined behind one under way is held, not started.
    @Test func partsPipelinedBehindAnExchangeAreHeldInOrder() {
        var machine = Self.requestRead()
        let received1 = machine.received(Self.head("/b"))
        #expect(received1 == Machine.Action.none)
        let received2 = machine.received(.end(nil))
        #expect(received2 == Machine.Action.none)
        let refused = machine.refused("no Host")
        #expect(refused == Machine.Action.none)
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
        let refused1 = machine.refused("two Host fields")
        #expect(refused1 == .answerRefusal(problem: "two Host fields"))
        #expect(machine.state == Self.exchange(1, .complete, .deciding, closes: true))
        let answerStarts = machine.answerStarts(relayed: false)
        #expect(answerStarts, "the 400 says Connection: close")
        let answerEnds = machine.answerEnds()
        #expect(answerEnds && machine.state == .closing)
        let received = machine.received(Self.head())
        let refused2 = machine.refused("again")
        #expect(received == Machine.Action.none && refused2 == Machine.Action.none)
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
        let requestBroke = read.requestBroke()
        #expect(requestBroke == Machine.Action.none, "a request read whole cannot break")
    }

    // MARK: The client closing, the server shutting down

    @Test func anIdleConnectionClosesWhenTheClientStopsSending() {
        var machine = Machine()
        let inputClosed = machine.inputClosed()
        #expect(inputClosed == .close)
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
        let inputClosed = machine.inputClosed()
        #expect(inputClosed == Machine.Action.none && machine.endsWhenIdle)
        let answerStarts = machine.answerStarts(relayed: false)
        let answerEnds = machine.answerEnds()
        #expect(!answerStarts && !answerEnds)
        let finishIfDone = machine.finishIfDone()
        #expect(finishIfDone == [] && machine.closesWhenIdle)
    }

    @Test func quiescingClosesAnIdleConnectionAndMarksAnAnswerNotYetBegun() {
        var idle = Machine()
        let quiesce1 = idle.quiesce()
        #expect(quiesce1 == .close)
        var deciding = Self.requestRead()
        let quiesce2 = deciding.quiesce()
        #expect(quiesce2 == Machine.Action.none && deciding.state == Self.exchange(1, .complete, .deciding, closes: true))
        var writing = Self.requestRead()
        _ = writing.answerStarts(relayed: false)
        _ = writing.quiesce()
        #expect(writing.state == Self.exchange(1, .complete, .writing(relayed: false)), "an answer under way is not changed")
        let answerEnds = writing.answerEnds()
        let finishIfDone = writing.finishIfDone()
        #expect(!answerEnds && finishIfDone == [] && writing.closesWhenIdle)
    }

    // MARK: The answer's side

    @Test func anExchangeEndsOnceBothSidesHaveAndGivesBackWhatWasHeld() {
        var machine = Machine()
        _ = machine.received(Self.head())
        _ = machine.received(Self.head("/pipelined"))  // ignored: a head cannot come in a body
        _ = machine.answerStarts(relayed: false)
        let answerEnds = machine.answerEnds()
        let finishIfDone1 = machine.finishIfDone()
        #expect(!answerEnds && finishIfDone1 == nil, "the request has not ended")
        _ = machine.received(.end(nil))
        _ = machine.received(Self.head("/b"))
        let finishIfDone2 = machine.finishIfDone()
        #expect(finishIfDone2 == [.part(Self.head("/b"))] && machine.state == .idle && machine.held.isEmpty)
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
        let answerStarts = machine.answerStarts(relayed: false)
        #expect(answerStarts)
        let answerEnds = machine.answerEnds()
        #expect(answerEnds && machine.state == .closing && machine.held.isEmpty && machine.current == nil)
        let finishIfDone = machine.finishIfDone()
        #expect(finishIfDone == nil)
    }

    /// An answer of our own before a streamed body was read leaves that body on the
    /// connection: the connection ends with the answer. A relayed answer does not.
    @Test func anOwnAnswerBeforeTheBodyWasReadClosesTheConnection() {
        var own = Machine()
        _ = own.received(Self.head())
        let answerStarts1 = own.answerStarts(relayed: false, leavesBodyUnread: true)
        #expect(answerStarts1)
        var relayed = Machine()
        _ = relayed.received(Self.head())
        relayed.sentUpstream(reused: false)
        let answerStarts2 = relayed.answerStarts(relayed: true)
        #expect(!answerStarts2)
        var read = Self.requestRead()
        let answerStarts3 = read.answerStarts(relayed: false, leavesBodyUnread: true)
        #expect(!answerStarts3, "a body read whole leaves nothing")
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
        let resendsAfterUpstreamClosed1 = machine.resendsAfterUpstreamClosed()
        #expect(resendsAfterUpstreamClosed1 && machine.state == Self.exchange(1, .complete, .upstream(reused: false)))
        let resendsAfterUpstreamClosed2 = machine.resendsAfterUpstreamClosed()
        #expect(!resendsAfterUpstreamClosed2)
        var fresh = Self.requestRead()
        fresh.sentUpstream(reused: false)
        let resendsAfterUpstreamClosed3 = fresh.resendsAfterUpstreamClosed()
        #expect(!resendsAfterUpstreamClosed3)
        var started = Self.requestRead()
        started.sentUpstream(reused: true)
        _ = started.answerStarts(relayed: true)
        let resendsAfterUpstreamClosed4 = started.resendsAfterUpstreamClosed()
        #expect(!resendsAfterUpstreamClosed4)
    }

    /// A failed upstream or a rejected answer retried: the exchange is decided again, and an
    /// answer of its own comes next.
    @Test func aFailedOrRejectedUpstreamAnswerIsDecidedAgain() {
        var machine = Self.requestRead()
        machine.sentUpstream(reused: false)
        machine.decidingAgain()
        #expect(machine.state == Self.exchange(1, .complete, .deciding) && !machine.awaitsUpstream)
        _ = machine.answerStarts(relayed: false)
        let answerEnds = machine.answerEnds()
        let finishIfDone = machine.finishIfDone()
        #expect(!answerEnds && finishIfDone == [])
    }

    @Test func eventsOfAClosingConnectionChangeNothing() {
        var machine = Machine()
        _ = machine.refused("bad")
        _ = machine.answerStarts(relayed: false)
        _ = machine.answerEnds()
        let inputClosed = machine.inputClosed()
        let quiesce = machine.quiesce()
        #expect(inputClosed == Machine.Action.none && quiesce == Machine.Action.none)
        let requestBroke = machine.requestBroke()
        let answerStarts = machine.answerStarts(relayed: false)
        let answerEnds = machine.answerEnds()
        #expect(requestBroke == Machine.Action.none && !answerStarts && !answerEnds)
        machine.sentUpstream(reused: true)
        #expect(machine.state == .closing && machine.readsNow(bodyPaused: true))
    }
}
