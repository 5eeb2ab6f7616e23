@testable import MultiAuthCore
import Testing

/// How the gateway and the proxy read a request path, against hand-derived cases: RFC 3986
/// §3.3's dot segments and §2.1's percent-encoding, and the spellings an upstream that
/// decodes (nginx, servlet containers, IIS) turns into a dot segment or a separator.
struct RequestPathTests {
    @Test(arguments: [
        // Raw and singly encoded, as RFC 3986 writes them.
        "/a/../b", "/a/./b", "/..", "/.", "/a/%2e%2e/b", "/a/%2E./b", "/a/.%2e", "/a/%2e", "/a/..?x=1", "/a/.#f",
        // The bypass of the hardening issue: encoded slashes around dots, in both cases.
        "/open/x%2F..%2F..%2Fadmin", "/open/x%2f..%2f..%2fadmin", "/users/user-1/..%2F..%2Fusers%2Fuser-2%2Fprofile",
        // Double- and triple-encoded: `%25` is `%`, so `%252e` is `%2e` is `.`.
        "/open/x%252F..%252Fadmin", "/open/%252e%252e/admin", "/open/%25252e%25252E/admin", "/a/%25%32%65%25%32%65/b",
        // Backslashes, which IIS and some frameworks read as separators.
        "/open/x%5C..%5Cadmin", "/open/x%5c../admin", "/open/..%5cx", "/open/x%255C..",
        // Servlet path parameters: `..;x` is `..` to Tomcat.
        "/a/..;/admin", "/a/.;x/b", "/a/%2e%2e;jsessionid=1/b",
        // A malformed escape does not hide a well-formed one after it.
        "/a/%zz/%2e%2e", "/a/%/..%2F",
    ])
    func dotSegmentsAreFoundHoweverTheyAreSpelled(target: String) {
        #expect(RequestPath.hasDotSegment(target))
    }

    @Test(arguments: [
        "/a/.../b", "/a/..b", "/a/b..", "/.well-known/x", "/a/%2e%2e%2e", "/a/%2e%2ex", "/a?x=/../", "/a#/../", "/", "/a/%2", "/a/%25",
        "/a;../b", "/a/b%3F..", "/files/report.v2..final", "/a/%2e%2e%2e%2F%2e%2e%2e",
    ])
    func otherPathsAreNot(target: String) {
        #expect(!RequestPath.hasDotSegment(target))
    }

    @Test(arguments: [
        ("/open/x%2Fy", ["open", "x", "y"]),
        ("/open/x%2fy%2F", ["open", "x", "y"]),
        ("/pets/caf%C3%A9", ["pets", "café"]),
        ("/a//b/", ["a", "b"]),
        ("/a/%FF", ["a", "%FF"]),
        ("/a/%zz", ["a", "%zz"]),
        ("/a/%252F", ["a", "%2F"]),
        ("/a/b?c=%2F/d", ["a", "b"]),
        ("/a/b#c/d", ["a", "b"]),
        ("a/b", ["a", "b"]),
        ("/", []),
    ])
    func segmentsAreDecodedOnceAndSplitAtEverySlash(target: String, segments: [String]) {
        #expect(RequestPath.segments(target) == segments)
    }

    /// A route is looked up on what follows an API's base path: a substring whose indices are
    /// the whole target's.
    @Test func aSubstringIsSplitFromItsOwnStart() {
        let target = "/prod/a%2Fb/c?d=/e"
        #expect(RequestPath.segments(target.dropFirst(5)) == ["a", "b", "c"])
        #expect(RequestPath.normalized(target.dropFirst(5)) == "/a/b/c")
    }

    @Test func theNormalizedPathIsWhatAnARNNames() {
        #expect(RequestPath.normalized("/users/user-1%2Fprofile?x=1") == "/users/user-1/profile")
        #expect(RequestPath.normalized("/") == "/")
        #expect(RequestPath.normalized("//a///b") == "/a/b")
    }
}
