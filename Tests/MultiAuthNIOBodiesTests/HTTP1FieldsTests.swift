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

    /// The common spellings, taken from names made once, are the names swift-http-types
    /// would make of them, spelled as sent; other spellings of them are made as they came.
    @Test func commonNamesAreTheNamesTheyWouldBe() throws {
        let common = ["Date", "Vary", "Server", "Accept", "x-api-key", "X-Amz-Date", "User-Agent", "Connection", "Keep-Alive", "Content-Type",
                      "Authorization", "Cache-Control", "Content-Length", "Accept-Encoding", "Transfer-Encoding", "X-Amz-Content-Sha256",
                      "X-Amz-Security-Token", "authorization", "DATE", "X-API-Key", "x-amz-date"]
        for name in common {
            let received = try #require(HTTPField.Name.received(name))
            #expect(received == HTTPField.Name(name) && received.rawName == name && received.canonicalName == name.lowercased())
        }
        #expect(HTTPField.Name.received("Bad Name") == nil && HTTPField.Name.received("") == nil)
    }

    @Test func aNameThatIsNotATokenIsLeftOut() {
        let fields = HTTPFields(http1: HTTPHeaders([("Bad Name", "x"), ("Good", "y"), ("", "z")]))
        #expect(fields.map(\.name.rawName) == ["Good"])
    }
}
