import HTTPTypes
import MultiAuthNIOBodies
import NIOHTTP1
import Testing

/// SwiftNIO's HTTP/1 fields as swift-http-types fields: order, case and repeats as received
/// (RFC 9110 section 5.3: a repeated field is kept as its lines), and a name that is not a
/// token (RFC 9110 section 5.1) left out.
struct HTTP1FieldsTests {
    @Test func fieldsKeepTheirOrderCaseAndRepeats() {
        let headers = HTTPHeaders([("X-A", "1"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2"), ("Content-Length", "0")])
        let fields = HTTPFields(http1: headers)
        #expect(fields.map { "\($0.name.rawName): \($0.value)" } == ["X-A: 1", "set-cookie: a=1", "Set-Cookie: b=2", "Content-Length: 0"])
        #expect(fields[values: .setCookie] == ["a=1", "b=2"])
    }

    @Test func aNameThatIsNotATokenIsLeftOut() {
        let fields = HTTPFields(http1: HTTPHeaders([("Bad Name", "x"), ("Good", "y"), ("", "z")]))
        #expect(fields.map(\.name.rawName) == ["Good"])
    }
}
