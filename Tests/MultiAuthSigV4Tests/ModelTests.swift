import Foundation
import HTTPTypes
import MultiAuthCore
import MultiAuthSigV4
import Testing

@Suite(.timeLimit(.minutes(5))) struct ModelTests {
    @Test(arguments: [
        (0, "19700101T000000Z"), (951_782_400, "20000229T000000Z"), (1_440_938_160, "20150830T123600Z"),
        (4_102_444_799, "20991231T235959Z"),
    ])
    func signingDateFormats(seconds: Int64, text: String) throws {
        #expect(SigningDate(secondsSince1970: seconds).amzDate == text)
        #expect(try SigningDate(parsing: text).secondsSince1970 == seconds)
    }

    @Test func nowIsTheCurrentSecondEvenWhenReused() {
        let before = Int64(Date().timeIntervalSince1970)
        let first = SigningDate.now()
        let second = SigningDate.now()
        let after = Int64(Date().timeIntervalSince1970)
        #expect((before...after).contains(first.secondsSince1970))
        #expect(second.secondsSince1970 >= first.secondsSince1970 && second.secondsSince1970 <= after)
        #expect(SigningDate(secondsSince1970: first.secondsSince1970) == first)
    }

    @Test func iso8601FromContextFilesParses() throws {
        #expect(try SigningDate(parsing: "2015-08-30T12:36:00Z").amzDate == "20150830T123600Z")
    }

    @Test(arguments: ["2015", "20150230T000000Z", "20150830T246000Z", "20150830 123600Z", "2015083OT123600Z", ""])
    func badDatesAreRejected(_ text: String) {
        #expect(throws: SigningError.invalidDate(text)) { try SigningDate(parsing: text) }
    }

    @Test func wireURLKeepsPathAndQueryRaw() throws {
        let url = try WireURL("HTTPS://Host.Example:8443/a%2Fb/ሴ?x=%7e&y#frag")
        #expect(url.scheme == "https")
        #expect(url.hostHeader == "host.example:8443")
        #expect(url.path == "/a%2Fb/ሴ")
        #expect(url.query == "x=%7e&y")
    }

    @Test(arguments: [
        "ftp://x/", "https://", "https:///p", "https://h:0/", "https://h:99999/", "https://u:p@h/", "https://h/a b",
        "example.com/path", "https://[::1/",
    ])
    func malformedURLsAreRejected(_ text: String) {
        let error = #expect(throws: WireURLError.self) { try WireURL(text) }
        #expect(error?.code == "WireURL.malformed")
    }

    @Test func aRequestTargetHTTPRequestWouldAlterIsRefusedNotChanged() throws {
        // swift-http-types turns a control character of the path into a space, so the request
        // sent would differ from the one signed (found by the request fuzz target).
        let broken = try SignableRequest(method: "GET", authority: "example.com", path: "/a", query: "x=1\u{01}2", headers: [])
        #expect(throws: SigningError.controlCharacter(in: "the request target")) { try broken.httpRequest() }
        let fine = try SignableRequest(method: "GET", authority: "example.com", path: "/a", query: "x=1%012", headers: [])
        #expect(try fine.httpRequest().path == "/a?x=1%012")
        let badHost = try SignableRequest(method: "GET", authority: nil, path: "/", query: "", headers: [("Host", "example.com\u{01}")])
        #expect(throws: SigningError.invalidHeaderValue("Host")) { try badHost.httpRequest() }
    }

    /// A combining mark after `?` forms one Character with it; the split is on bytes, so the
    /// query still starts after the `?` (found by the request fuzz target).
    @Test func requestTextSplitsTheTargetOnBytes() throws {
        let text = try HTTPRequestText(parsing: Array("GET /?\u{1034}=bar HTTP/1.1\nHost:example.com\n\n".utf8))
        let request = try text.signableRequest()
        #expect(request.path == "/")
        #expect(request.query == "\u{1034}=bar")
        let http = try SignableRequest(try request.httpRequest(), payload: .empty)
        #expect(http.path == "/" && http.query == "\u{1034}=bar")
    }

    @Test func headerNamesMustBeTokens() {
        #expect(throws: SigningError.invalidHeaderName("Bad Name")) {
            try SignableRequest(method: "GET", url: "https://h/", headers: [("Bad Name", "v")])
        }
    }

    @Test func requestTextParsesFoldedHeadersAndBodies() throws {
        let text = try HTTPRequestText(parsing: Array("GET /a b?c HTTP/1.1\nHost:h\nX:1\n  2\n\nbody".utf8))
        #expect(text.method == "GET")
        #expect(text.target == "/a b?c")
        #expect(text.headers.first(named: "x") == "1\n  2")
        #expect(text.body == Array("body".utf8))
    }

    @Test func requestTextRejectsAHeaderWithoutColon() {
        #expect(throws: SigningError.malformedHeaderLine("nocolon")) {
            try HTTPRequestText(parsing: Array("GET / HTTP/1.1\nnocolon\n".utf8))
        }
    }
}
