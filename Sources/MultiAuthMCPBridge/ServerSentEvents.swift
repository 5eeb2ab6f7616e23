/// An `text/event-stream` body read as it arrives (the WHATWG "event stream interpretation"):
/// lines end in LF, CR or CRLF; `data:` lines join with LF; `id:` sets the last event id; an
/// empty line dispatches the event; comments (`:`) and other fields are ignored.
package struct ServerSentEvents: Sendable {
    /// One dispatched event.
    package struct Event: Sendable, Equatable {
        /// The event's data (its `data:` lines joined with LF).
        package var data: [UInt8]
        /// The last event id at dispatch ("" when none was set).
        package var id: String
        /// The `event:` type ("message" when none).
        package var type: String

        /// An event with these parts.
        package init(data: [UInt8], id: String, type: String) {
            self.data = data
            self.id = id
            self.type = type
        }
    }

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var type = ""
    private var sawCR = false
    /// The last event id seen (what `Last-Event-ID` resumes from).
    package private(set) var lastEventID = ""
    /// The reconnection time the server asked for (`retry:`), in milliseconds.
    package private(set) var retryMilliseconds: Int?

    /// A stream with nothing read yet.
    package init() {}

    /// Reads `chunk` and returns the events it completes.
    package mutating func feed(_ chunk: [UInt8]) -> [Event] {
        var events: [Event] = []
        for byte in chunk {
            if byte == 0x0A, sawCR {
                sawCR = false
                continue
            }
            sawCR = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else { return dispatch() }
        guard line.first != UInt8(ascii: ":") else { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let name = String(decoding: line[..<colon], as: UTF8.self)
        var value = colon < line.endIndex ? line[(colon + 1)...] : []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch name {
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "id" where !value.contains(0):
            lastEventID = String(decoding: value, as: UTF8.self)
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) { retryMilliseconds = Int(String(decoding: value, as: UTF8.self)) }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> Event? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            type = ""
        }
        guard hasData else { return nil }
        return Event(data: data, id: lastEventID, type: type.isEmpty ? "message" : type)
    }
}
