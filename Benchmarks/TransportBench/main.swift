// Sign-and-send overhead over plain libcurl on loopback, and profile-file resolution time.
// Usage: TransportBench URL REQUESTS   (URL answers any request, e.g. the test API server's /open/)
// Prints one JSON object.
import Foundation
import HTTPTypes
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4

let arguments = CommandLine.arguments
let base = arguments.count > 1 ? arguments[1] : "http://127.0.0.1:8080/open/bench"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 300 : 300
let body = [UInt8](repeating: 0x61, count: 1024)
let transport = CurlHTTPClient()
let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKIDBENCHMARK", secretAccessKey: "benchmark-secret-key-not-a-real-one-000000"))
let signed = AuthorizedHTTPClient(
    transport: transport, authorizer: IAMAuthorizer(credentials: credentials, region: "us-east-1", service: "execute-api"))

// Alternate plain and signed rounds so a noisy moment hurts both.
var plainTotal = 0.0
var signedTotal = 0.0
for _ in 0..<count / 50 {
    plainTotal += seconds(try await clock.measure {
        for _ in 0..<50 {
            _ = try await transport.send(try HTTPRequest(method: .post, wireURL: base, headerFields: [.contentType: "text/plain"]), body: .bytes(body))
        }
    })
    signedTotal += seconds(try await clock.measure {
        for _ in 0..<50 {
            let request = try HTTPRequest(method: .post, wireURL: base, headerFields: [.contentType: "text/plain"])
            _ = try await signed.send(request, body: .bytes(body))
        }
    })
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-bench-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
var profiles = ""
for index in 0..<50 { profiles += "[p\(index)]\naws_access_key_id = AKID\(index)\naws_secret_access_key = secret\(index)\n\n" }
try profiles.write(toFile: folder + "/credentials", atomically: true, encoding: .utf8)
let provider = ProfileCredentialsProvider(
    profile: "p42", environment: ["AWS_SHARED_CREDENTIALS_FILE": folder + "/credentials", "AWS_CONFIG_FILE": folder + "/none"],
    http: transport)
_ = try await provider.credentials()
let resolve = seconds(try await clock.measure { for _ in 0..<200 { _ = try await provider.credentials() } }) / 200

var wrappedTotal = 0.0
let wrapped = AuthorizedHTTPClient(transport: transport, authorizer: NoAuthorizer())
for _ in 0..<count / 50 {
    wrappedTotal += seconds(try await clock.measure {
        for _ in 0..<50 {
            let request = try HTTPRequest(method: .post, wireURL: base, headerFields: [.contentType: "text/plain"])
            _ = try await wrapped.send(request, body: .bytes(body))
        }
    })
}

let requests = Double(count / 50 * 50)
let report: [String: Double] = [
    "plain_ms": plainTotal / requests * 1000, "signed_ms": signedTotal / requests * 1000,
    "overhead_percent": (signedTotal / plainTotal - 1) * 100, "unsigned_wrapper_ms": wrappedTotal / requests * 1000, "profile_resolve_ms": resolve * 1000,
]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
