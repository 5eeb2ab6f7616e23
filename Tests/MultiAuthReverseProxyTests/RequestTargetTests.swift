import HTTPTypes
@testable import MultiAuthReverseProxy
import MultiAuthCore
import Testing

/// The byte-level checks every forwarded request passes through, against hand-derived cases:
/// a dot segment refused before any decision (its spellings: ``RequestPathTests`` in
/// MultiAuthCoreTests) and the hosts a browser page cannot reach a local server under
/// (addresses and `localhost`).
struct RequestTargetTests {
    @Test(arguments: ["/a/../b", "/a/%2e%2e/b", "/open/x%2F..%2F..%2Fadmin", "/a/%252e%252e", "/a/..%5Cb", "/a/..;/b"])
    func aDotSegmentIsRefusedBeforeAnyDecision(target: String) throws {
        let head = HTTPRequest(method: .get, scheme: "http", authority: "a", path: target)
        let refusal = try #require(UpstreamForwarder.refusal(of: head))
        #expect(refusal.head.status == .badRequest)
        #expect(String(decoding: refusal.body, as: UTF8.self).contains(". or .. segment"))
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
