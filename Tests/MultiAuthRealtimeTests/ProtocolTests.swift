import MultiAuthAppSync
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthRealtime
import Testing

/// The protocol pieces that need no server: backoff, frame parsing, operation kinds.
@Suite(.timeLimit(.minutes(5))) struct ProtocolTests {
    @Test func backoffDoublesFromItsBaseUpToItsCapWithEqualJitter() {
        let backoff = Backoff(base: .milliseconds(100), cap: .seconds(5))
        // Hand-derived: step = min(5 s, 100 ms × 2^(failures - 1)); wait = step/2 + step/2 × random.
        #expect(backoff.delay(after: 1, random: 0) == .milliseconds(50))
        #expect(backoff.delay(after: 1, random: 1) == .milliseconds(100))
        #expect(backoff.delay(after: 4, random: 0.5) == .milliseconds(600))
        #expect(backoff.delay(after: 7, random: 0) == .milliseconds(2500))
        #expect(backoff.delay(after: 41, random: 1) == .seconds(5))
        #expect(backoff.delay(after: 2, random: 7) == .milliseconds(200))
        #expect(backoff.allowsRetry(after: 2) && !backoff.allowsRetry(after: 3) && !Backoff.once.allowsRetry(after: 1))
    }

    static let dialect = AppSyncGraphQLDialect(apiURL: "https://example.appsync-api.us-east-1.amazonaws.com/graphql", mode: .apiKey, authorizer: NoAuthorizer())

    @Test func graphQLFramesFromAppSyncsDocumentationParse() {
        let parse = Self.dialect.parse
        #expect(parse(#"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#) == .connectionAcknowledged(keepAliveTimeout: .milliseconds(300000)))
        #expect(parse(#"{"type":"ka"}"#) == .keepAlive)
        #expect(parse(#"{"type":"start_ack","id":"ee849ef0-cf23-4cb8-9fcb-152ae4fd1e69"}"#) == .subscribed(id: "ee849ef0-cf23-4cb8-9fcb-152ae4fd1e69"))
        #expect(parse(#"{"type":"data","id":"a","payload":{"data":{"onCreateMessage":{"id":"1"}}}}"#)
            == .data(id: "a", payload: .object(["data": .object(["onCreateMessage": .object(["id": .string("1")])])])))
        #expect(parse(#"{"type":"complete","id":"a"}"#) == .completed(id: "a"))
        #expect(parse(#"{"type":"error","id":"a","payload":{"errors":[{"errorType":"UnauthorizedException","message":"Permission denied"}]}}"#)
            == .subscriptionFailed(id: "a", errors: [RealtimeServerError(errorType: "UnauthorizedException", message: "Permission denied")]))
        #expect(parse(#"{"type":"connection_error","payload":{"errors":[{"errorType":"com.amazon.coral.service#UnauthorizedException","errorCode":401}]}}"#)
            == .connectionFailed(errors: [RealtimeServerError(errorType: "com.amazon.coral.service#UnauthorizedException", errorCode: 401)]))
        #expect(parse(#"{"type":"something_new"}"#) == .unknown(type: "something_new"))
        for bad in ["", "{", "[]", #"{"type":1}"#, #"{"id":"a"}"#, "\u{0}"] { #expect(parse(bad) == .malformed) }
    }

    @Test func eventsFramesParseWithTheEventItselfAsJSON() {
        let dialect = AppSyncEventsDialect(httpEndpoint: "https://example.appsync-api.us-east-1.amazonaws.com/event", mode: .apiKey, authorizer: NoAuthorizer())
        #expect(dialect.endpoint == "wss://example.appsync-realtime-api.us-east-1.amazonaws.com/event/realtime")
        #expect(dialect.parse(#"{"type":"connection_ack","connectionTimeoutMs":300000}"#) == .connectionAcknowledged(keepAliveTimeout: .seconds(300)))
        #expect(dialect.parse(#"{"type":"subscribe_success","id":"a"}"#) == .subscribed(id: "a"))
        #expect(dialect.parse(#"{"type":"data","id":"a","event":"{\"n\":1}"}"#) == .data(id: "a", payload: .object(["n": .number(1)])))
        #expect(dialect.parse(#"{"type":"data","id":"a","event":"not json"}"#) == .data(id: "a", payload: .string("not json")))
        #expect(dialect.parse(#"{"type":"subscribe_error","id":"a","errors":[{"errorType":"UnauthorizedException","message":"no"}]}"#)
            == .subscriptionFailed(id: "a", errors: [RealtimeServerError(errorType: "UnauthorizedException", message: "no")]))
        #expect(dialect.parse(#"{"type":"unsubscribe_success","id":"a"}"#) == .completed(id: "a"))
    }

    @Test func realtimeEndpointsFollowAppSyncsNaming() {
        #expect(RealtimeAuthorization.realtimeEndpoint(for: "https://abc.appsync-api.eu-west-1.amazonaws.com/graphql")
            == "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/graphql")
        #expect(RealtimeAuthorization.realtimeEndpoint(for: "https://api.example.com/graphql") == "wss://api.example.com/graphql/realtime")
        #expect(RealtimeAuthorization.realtimeEndpoint(for: "http://127.0.0.1:8080/graphql") == "ws://127.0.0.1:8080/graphql/realtime")
    }

    @Test func theFirstOperationDecidesTheKind() {
        #expect(OperationKind.of("subscription S { onCreatePost { id } }") == .subscription)
        #expect(OperationKind.of("  # a comment with query\n subscription { a }") == .subscription)
        #expect(OperationKind.of("fragment F on Post { id }\nsubscription S { onCreatePost { ...F } }") == .subscription)
        #expect(OperationKind.of("{ listPosts { id } }") == .query)
        #expect(OperationKind.of("query Q { subscription }") == .query)
        #expect(OperationKind.of("\"\"\"subscription\"\"\" mutation M { a }") == .mutation)
        #expect(OperationKind.of("") == nil)
        #expect(OperationKind.of("fragment F on Post { id }") == nil)
    }
}
