import MultiAuthMCPBridge
import Testing

/// The event stream as the WHATWG HTML standard interprets it (§9.2.6), case by case.
struct ServerSentEventsTests {
    static func events(_ chunks: [String]) -> [ServerSentEvents.Event] {
        var stream = ServerSentEvents()
        return chunks.flatMap { stream.feed(Array($0.utf8)) }
    }

    @Test func dataLinesJoinWithLineFeedsAndAnEmptyLineDispatches() {
        let events = Self.events(["data: first\ndata: second\n\ndata:third\n\n"])
        #expect(events.map { String(decoding: $0.data, as: UTF8.self) } == ["first\nsecond", "third"])
        #expect(events.allSatisfy { $0.type == "message" })
    }

    @Test func anEventSplitAnywhereReadsTheSame() {
        let text = "id: 7\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\n"
        let whole = Self.events([text])
        for cut in 1..<text.utf8.count {
            let bytes = Array(text.utf8)
            var stream = ServerSentEvents()
            let split = stream.feed(Array(bytes[..<cut])) + stream.feed(Array(bytes[cut...]))
            #expect(split == whole, "cut at \(cut)")
        }
        #expect(whole == [ServerSentEvents.Event(data: Array(#"{"a":1}"#.utf8), id: "7", type: "message")])
    }

    @Test func commentsOtherFieldsAndEmptyEventsAreNotDispatched() {
        let events = Self.events([": keep-alive\n\nfoo: bar\n\nevent: ping\n\nretry: 1500\nid: x\n\n"])
        #expect(events.isEmpty)
        var stream = ServerSentEvents()
        _ = stream.feed(Array("retry: 1500\nid: e-9\n\n".utf8))
        #expect(stream.lastEventID == "e-9" && stream.retryMilliseconds == 1500)
    }

    @Test func theIdLastSetStaysForLaterEventsAndOtherTypesAreNamed() {
        let events = Self.events(["id: 1\ndata: a\n\ndata: b\n\nevent: endpoint\ndata: c\n\n"])
        #expect(events.map(\.id) == ["1", "1", "1"])
        #expect(events.map(\.type) == ["message", "message", "endpoint"])
    }

    @Test func aFieldWithoutAColonIsItsNameWithAnEmptyValue() {
        let events = Self.events(["data\ndata\n\n"])
        #expect(events.map(\.data) == [[0x0A]])
    }
}
