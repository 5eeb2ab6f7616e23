import HTTPTypes
import MultiAuthCore
import Testing

/// Requests from wire URLs: split by hand-derived expectations (RFC 3986's authority and
/// request target), never re-encoded.
@Suite(.timeLimit(.minutes(5))) struct WireURLTests {
    @Test(arguments: [
        ("https://abc.execute-api.us-east-1.amazonaws.com/prod/items?b=2&a=1", "https", "abc.execute-api.us-east-1.amazonaws.com", "/prod/items?b=2&a=1"),
        ("HTTP://Host:8080", "http", "Host:8080", "/"),
        ("https://h?x=1", "https", "h", "/?x=1"),
        ("https://h/a/./b/../%2F?x#fragment", "https", "h", "/a/./b/../%2F?x"),
    ])
    func partsAreKeptAsWritten(url: String, scheme: String, authority: String, path: String) throws {
        let request = try HTTPRequest(method: .get, wireURL: url)
        #expect(request.scheme == scheme && request.authority == authority && request.path == path)
    }

    @Test(arguments: ["ftp://h/x", "https://", "https:///x", "no-scheme/x", "https://h/a b", "https://h/\r\nX: y"])
    func malformedURLsAreTypedErrors(url: String) {
        #expect(throws: HTTPMessageError.self) { try HTTPRequest(method: .get, wireURL: url) }
    }

    @Test func theHostLeavesOutThePort() throws {
        #expect(try HTTPRequest(method: .get, wireURL: "https://h.example:443/").wireHost == "h.example")
        #expect(try HTTPRequest(method: .get, wireURL: "http://[::1]:8080/").wireHost == "[::1]")
    }

    /// User information is refused (as SigV4's `WireURL`, on the same splitter, refuses it),
    /// and the message does not repeat the password.
    @Test func userInformationIsRefusedWithoutEchoingIt() throws {
        #expect {
            try HTTPRequest(method: .get, wireURL: "https://user:s3cret@h.example/")
        } throws: { error in
            "\(error)".contains("user information") && !"\(error)".contains("s3cret")
        }
    }

    @Test func headerValuesWithLineBreaksAreRefusedNotFolded() {
        #expect(throws: HTTPMessageError.invalidHeaderValue(name: "X-A")) { try HTTPFields(checking: [("X-A", "a\r\nInjected: b")]) }
        #expect(throws: HTTPMessageError.invalidHeaderName("X A")) { try HTTPFields(checking: [("X A", "b")]) }
    }

    @Test func onlyValueTakesAFieldSentOnceAndNoneSentTwice() throws {
        let key = HTTPField.Name("x-api-key")!
        #expect(try HTTPFields(checking: [("X-API-Key", "k"), ("Accept", "*/*")]).onlyValue(key) == "k")
        #expect(try HTTPFields(checking: [("x-api-key", "k"), ("x-api-key", "k")]).onlyValue(key) == nil)
        #expect(try HTTPFields(checking: [("Accept", "*/*")]).onlyValue(key) == nil)
    }

    @Test func removeFieldsDropsOneOrManyAndKeepsTheRestInOrder() throws {
        let fields = try HTTPFields(checking: [("A", "1"), ("Drop", "x"), ("B", "2"), ("drop", "y"), ("C", "3"), ("Gone", "z")])
        let drops = { (name: HTTPField.Name) in name.canonicalName == "drop" || name.canonicalName == "gone" }
        var many = fields
        many.removeFields(named: drops)
        #expect(many.map(\.value) == ["1", "2", "3"])
        var one = try HTTPFields(checking: [("A", "1"), ("Drop", "x"), ("B", "2")])
        one.removeFields(named: drops)
        #expect(one.map(\.value) == ["1", "2"])
        var none = try HTTPFields(checking: [("A", "1"), ("B", "2")])
        none.removeFields(named: drops)
        #expect(none.map(\.value) == ["1", "2"])
    }
}
