@testable import MultiAuthReverseProxy
import MultiAuthCore
import Testing

/// The byte-level checks every forwarded request passes through, against hand-derived cases:
/// RFC 3986 §3.3's dot segments (raw or percent-encoded, in the path part only) and the hosts a
/// browser page cannot reach a local server under (addresses and `localhost`).
struct RequestTargetTests {
    @Test(arguments: [
        ("/a/../b", true), ("/a/./b", true), ("/..", true), ("/.", true), ("/a/%2e%2e/b", true), ("/a/%2E./b", true),
        ("/a/.%2e", true), ("/a/%2e", true), ("/a/..?x=1", true), ("/a/.#f", true),
        ("/a/.../b", false), ("/a/..b", false), ("/a/b..", false), ("/.well-known/x", false), ("/a/%2e%2e%2e", false),
        ("/a?x=/../", false), ("/a#/../", false), ("/", false), ("/a/%2", false), ("/a/%2f..", false), ("/a/%25", false),
    ])
    func dotSegmentsAreFoundInThePathOnly(target: String, found: Bool) {
        #expect(UpstreamForwarder.hasDotSegment(target) == found)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.0.0.1:8080", true), ("10.0.0.255:1", true), ("LOCALHOST:9", true), ("localhost", true),
        ("[::1]:80", true), ("[::1]", true), ("1.2.3.4:", true),
        ("256.0.0.1", false), ("1.2.3", false), ("1.2.3.4.5", false), ("1..3.4", false), ("0001.2.3.4", false), ("1.2.3.4:x", false),
        ("example.com", false), ("127.0.0.1.nip.io", false), ("", false), ("1.2.3.4:80:80", false),
    ])
    func onlyAddressesAndLocalhostAreLocal(authority: String, local: Bool) {
        #expect(HostField.isAddressOrLocalhost(authority) == local)
    }
}
