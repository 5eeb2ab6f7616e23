import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The exchanges of one client connection as states, and what each event asks
/// ``ForwardingHandler`` to do. It holds no channel and does no I/O, so every transition is
/// tested on its own (`ExchangeStateMachineTests`).
///
/// One exchange runs at a time. What a client pipelines behind it (request parts, a head
/// refused by ``RequestHeadRules``) is held and taken again, in order, once the exchange has
/// both read its request and written its response. An answer that ends the connection leaves
/// it ``State/closing``: nothing more is read or answered.
struct ExchangeStateMachine {
    /// Where the connection is.
    enum State: Equatable {
        /// No exchange under way.
        case idle
        /// An exchange under way.
        case exchanging(Exchange)
        /// An answer that ends the connection has gone out.
        case closing
    }

    /// One exchange: how far its request and its response have come.
    struct Exchange: Equatable {
        /// Its place on the connection, from 1; a decision made for an earlier one is dropped.
        let number: Int
        var request: Request
        var response: Response
        /// The connection closes after this response: the client asked, the server is
        /// shutting down, or the answer came before the request's body was read.
        var closesConnection: Bool
    }

    /// The request's side of an exchange.
    enum Request: Equatable {
        /// Its body is still arriving.
        case receiving
        /// Its end has arrived.
        case complete
    }

    /// The response's side of an exchange.
    enum Response: Equatable {
        /// No answer yet, and nothing sent upstream (or a failed or rejected attempt undone).
        case deciding
        /// Sent upstream, nothing of the answer written yet; `reused` when it went out on a
        /// kept-alive connection that may turn out closed (then it may go once more).
        case upstream(reused: Bool)
        /// The answer's head has gone out; `relayed` when it is the upstream's.
        case writing(relayed: Bool)
        /// The answer has ended.
        case complete
    }

    /// What came behind the exchange under way.
    enum Held: Equatable {
        case part(HTTPRequestPart)
        case refused(problem: String)
    }

    /// What the handler does for an event.
    enum Action: Equatable {
        case none
        /// A new exchange: route the head and start deciding.
        case start(number: Int, head: HTTPRequest)
        /// Pass these body bytes to the decision.
        case deliver(ByteBuffer)
        /// The request's end arrived: end the body stream (or decide a body held whole), then
        /// call ``finishIfDone()``.
        case endRequest
        /// Answer a refused head 400 in this exchange; the connection ends after it.
        case answerRefusal(problem: String)
        /// The rest of the body cannot come: fail what waits for it, and answer a body that
        /// was being held whole. The connection ends after the answer.
        case failBody(reason: String)
        /// Close the connection now.
        case close
    }

    private(set) var state = State.idle
    private(set) var held: [Held] = []
    private var started = 0
    /// The client closed its sending side, or the server is shutting down: the connection
    /// ends once it is idle.
    private(set) var endsWhenIdle = false

    /// The number of the exchange under way.
    var current: Int? { if case .exchanging(let exchange) = state { exchange.number } else { nil } }

    // MARK: The client's side

    /// A part of a request arrived.
    mutating func received(_ part: HTTPRequestPart) -> Action {
        switch state {
        case .closing: return .none
        case .idle:
            // Between exchanges only a head can come: the decoder ends each request before the next.
            guard case .head(let head) = part else { return .none }
            started += 1
            state = .exchanging(Exchange(number: started, request: .receiving, response: .deciding, closesConnection: ExchangeGuards.saysClose(head.headerFields)))
            return .start(number: started, head: head)
        case .exchanging(var exchange):
            guard exchange.request == .receiving else {
                held.append(.part(part))
                return .none
            }
            switch part {
            case .head: return .none
            case .body(let bytes): return .deliver(bytes)
            case .end:
                exchange.request = .complete
                state = .exchanging(exchange)
                return .endRequest
            }
        }
    }

    /// A head was refused before it could be read as a request.
    mutating func refused(_ problem: String) -> Action {
        switch state {
        case .closing: return .none
        case .exchanging:
            held.append(.refused(problem: problem))
            return .none
        case .idle:
            started += 1
            state = .exchanging(Exchange(number: started, request: .complete, response: .deciding, closesConnection: true))
            return .answerRefusal(problem: problem)
        }
    }

    /// The client closed its sending side.
    mutating func inputClosed() -> Action {
        endsWhenIdle = true
        if state == .idle, held.isEmpty { return .close }
        return bodyCannotEnd("the client closed its sending side before the body ended")
    }

    /// The request broke off in its middle (its framing or a chunk).
    mutating func requestBroke() -> Action { bodyCannotEnd("the request is malformed in its middle (its framing or a chunk)") }

    private mutating func bodyCannotEnd(_ reason: String) -> Action {
        guard case .exchanging(var exchange) = state, exchange.request == .receiving else { return .none }
        exchange.closesConnection = true
        state = .exchanging(exchange)
        return .failBody(reason: reason)
    }

    /// The server is shutting down gracefully: an idle connection closes now, a busy one once
    /// what it received is answered (an answer not yet begun says `Connection: close`).
    mutating func quiesce() -> Action {
        endsWhenIdle = true
        guard case .exchanging(var exchange) = state else { return state == .idle ? .close : .none }
        if !Self.hasStarted(exchange.response) { exchange.closesConnection = true }
        state = .exchanging(exchange)
        return .none
    }

    /// Whether reading may go on: between exchanges, or while nothing is held behind the
    /// exchange and its body's reader is not paused.
    func readsNow(bodyPaused: Bool) -> Bool {
        guard case .exchanging = state else { return true }
        return held.isEmpty && !bodyPaused
    }

    // MARK: The response's side

    /// The request went upstream (`reused`: on a kept-alive connection).
    mutating func sentUpstream(reused: Bool) {
        update { $0.response = .upstream(reused: reused) }
    }

    /// The upstream closed a kept-alive connection as the request went out: true when the
    /// request may go once more (at most once: the new attempt is not marked reused).
    mutating func resendsAfterUpstreamClosed() -> Bool {
        guard case .exchanging(let exchange) = state, exchange.response == .upstream(reused: true) else { return false }
        update { $0.response = .upstream(reused: false) }
        return true
    }

    /// The upstream's answer is being relayed, or awaited.
    var awaitsUpstream: Bool {
        guard case .exchanging(let exchange) = state else { return false }
        return switch exchange.response {
        case .upstream, .writing(relayed: true): true
        default: false
        }
    }

    /// A decision is being made again for the exchange (a rejected upstream answer retried,
    /// or a failed upstream answered here).
    mutating func decidingAgain() {
        update { $0.response = .deciding }
    }

    /// The answer's head is about to go out (`relayed`: the upstream's). An answer of our
    /// own that comes before a streamed body was read whole leaves that body on the
    /// connection (`leavesBodyUnread`), so the connection ends with it. Returns whether the
    /// head must say `Connection: close`.
    mutating func answerStarts(relayed: Bool, leavesBodyUnread: Bool = false) -> Bool {
        guard case .exchanging(var exchange) = state else { return false }
        if leavesBodyUnread, exchange.request == .receiving { exchange.closesConnection = true }
        exchange.response = .writing(relayed: relayed)
        state = .exchanging(exchange)
        return exchange.closesConnection
    }

    /// Whether the answer's head has gone out.
    var answerStarted: Bool {
        guard case .exchanging(let exchange) = state else { return false }
        return Self.hasStarted(exchange.response)
    }

    /// The answer ended: true when the connection closes after it (nothing held is kept).
    mutating func answerEnds() -> Bool {
        guard case .exchanging(var exchange) = state else { return false }
        if exchange.closesConnection {
            state = .closing
            held = []
            return true
        }
        exchange.response = .complete
        state = .exchanging(exchange)
        return false
    }

    /// Ends the exchange once its request and its answer both have: returns what was held
    /// behind it, to take again in order (then ``closesWhenIdle`` says whether to close).
    mutating func finishIfDone() -> [Held]? {
        guard case .exchanging(let exchange) = state, exchange.request == .complete, exchange.response == .complete else { return nil }
        state = .idle
        defer { held = [] }
        return held
    }

    /// True when the connection, idle now, is to end.
    var closesWhenIdle: Bool { endsWhenIdle && state == .idle }

    private static func hasStarted(_ response: Response) -> Bool {
        switch response {
        case .writing, .complete: true
        case .deciding, .upstream: false
        }
    }

    private mutating func update(_ change: (inout Exchange) -> Void) {
        guard case .exchanging(var exchange) = state else { return }
        change(&exchange)
        state = .exchanging(exchange)
    }
}
