// Measures our SigV4 signer on the workloads of scripts/bench and prints one JSON object.
// Usage: SigV4Bench [seconds-per-measurement]
import Foundation
import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthSigV4

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 1.0
let url = "https://abc123.execute-api.us-east-1.amazonaws.com/prod/items/42?b=2&a=1"
let host = "abc123.execute-api.us-east-1.amazonaws.com"
let credentials = AWSCredentials(
    accessKeyId: "AKIDBENCHMARK", secretAccessKey: "benchmark-secret-key-not-a-real-one-000000")
let megabyte = [UInt8](repeating: 0x61, count: 1 << 20)

/// Runs `body` repeatedly for about `seconds` after a short warm-up, best of five rounds;
/// returns calls per second.
@MainActor func rate(_ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<256 { try body() }
    var best = 0.0
    for _ in 0..<5 {
        var calls = 0
        let clock = ContinuousClock()
        let start = clock.now
        var elapsed = 0.0
        while elapsed < seconds / 5 {
            for _ in 0..<64 { try body() }
            calls += 64
            let duration = clock.now - start
            elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        best = max(best, Double(calls) / elapsed)
    }
    return best
}

var sink = 0
let cachedSigner = SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")
let uncachedSigner = SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api", keyCache: nil)

let readyGET = try HTTPRequest(method: .get, wireURL: url)
let readyPOST = try HTTPRequest(method: .post, wireURL: url)

/// Signs one request through the public API (a swift-http-types `HTTPRequest` in, the
/// signed `HTTPRequest` out); the signer is long-lived. The request is built once, as a
/// proxy or a client holding its request has it; `buildingRequest` builds it from the URL
/// on every call as well.
@MainActor func signOnce(method: HTTPRequest.Method, body: Payload, cache: SigningKeyCache?, buildingRequest: Bool = false) throws {
    let request = buildingRequest ? try HTTPRequest(method: method, wireURL: url) : method == .get ? readyGET : readyPOST
    let date = SigningDate.now()
    let signer = cache == nil ? uncachedSigner : cachedSigner
    let result = try signer.signHeaders(request, payload: body, date: date)
    sink &+= try result.signedRequest().headerFields.count
}

/// The same GET through the signer's internal form only (no `HTTPRequest` on either side):
/// what the conversion at the public boundary costs is the difference.
@MainActor func signSignableOnce() throws {
    let request = try SignableRequest(method: "GET", url: url, headers: [("Host", host)], payload: .empty)
    sink &+= try cachedSigner.signHeaders(request, date: SigningDate.now()).authorization?.utf8.count ?? 0
}

let cache = SigningKeyCache.shared

/// Presigns the same GET for 15 minutes through the public API.
@MainActor func presignOnce() throws -> HTTPRequest {
    try cachedSigner.presign(readyGET, expires: 900, date: SigningDate.now()).signedRequest()
}

let sigV4aSigner = try SigV4Signer(credentials: credentials, regionSet: "us-east-1", service: "execute-api")
if let iterations = ProcessInfo.processInfo.environment["SIGV4BENCH_PROFILE_SIGV4A"].flatMap(Int.init) {
    for _ in 0..<iterations {
        sink &+= try sigV4aSigner.signHeaders(readyGET, payload: .empty, date: SigningDate.now()).signedRequest().headerFields.count
    }
    exit(0)
}

if let iterations = ProcessInfo.processInfo.environment["SIGV4BENCH_PROFILE_PRESIGN"].flatMap(Int.init) {
    for _ in 0..<iterations { sink &+= try presignOnce().path?.utf8.count ?? 0 }
    exit(0)
}

// Profiling mode: sign a fixed number of GET requests and stop, for instruction counting
// (valgrind --tool=callgrind) rather than timing.
if let iterations = ProcessInfo.processInfo.environment["SIGV4BENCH_PROFILE_ITERATIONS"].flatMap(Int.init) {
    let internalForm = ProcessInfo.processInfo.environment["SIGV4BENCH_PROFILE_SIGNABLE"] != nil
    for _ in 0..<iterations { try internalForm ? signSignableOnce() : signOnce(method: .get, body: .empty, cache: cache) }
    exit(0)
}
// The verifier on the same GET, as a server receives it (swift-http-types' HTTPRequest, as
// the gateway and the Hummingbird middleware pass it): parse the authorization, recompute, compare.
let received = try cachedSigner.signHeaders(readyGET, payload: .empty, date: SigningDate.now()).signedRequest()
let receivedSignable = try SignableRequest(received, payload: .empty)
let verifier = SigV4Verifier(region: "us-east-1", service: "execute-api") { _ in
    VerifierCredential(secretAccessKey: credentials.secretAccessKey)
}
// The same verifier with a fixed table of credentials, as the gateway builds it: no await.
let tableVerifier = SigV4Verifier(
    region: "us-east-1", service: "execute-api",
    credentials: [credentials.accessKeyId: VerifierCredential(secretAccessKey: credentials.secretAccessKey)])
let receivedAt = SigningDate.now()
if let iterations = ProcessInfo.processInfo.environment["SIGV4BENCH_PROFILE_VERIFY"].flatMap(Int.init) {
    let presigned = ProcessInfo.processInfo.environment["SIGV4BENCH_PRESIGNED"] != nil
    let profiled = ProcessInfo.processInfo.environment["SIGV4BENCH_LOOKUP"] == "function" ? verifier : tableVerifier
    let request = presigned ? try presignOnce() : received
    if ProcessInfo.processInfo.environment["SIGV4BENCH_LOOKUP"] == "function" {
        await verifyRepeatedly(profiled, request, receivedAt, iterations: iterations)
    } else {
        // The table form's synchronous path (what its async call runs), so callgrind can count
        // it: valgrind cannot follow the cooperative pool's threads.
        for _ in 0..<iterations { sink &+= (try? profiled.verifyWithTable(request, now: receivedAt)?.get())?.utf8.count ?? 0 }
    }
    exit(0)
}
let getCached = try rate { try signOnce(method: .get, body: .empty, cache: cache) }
let getBuilt = try rate { try signOnce(method: .get, body: .empty, cache: cache, buildingRequest: true) }
let getUncached = try rate { try signOnce(method: .get, body: .empty, cache: nil) }
let getSignable = try rate { try signSignableOnce() }

// The OpenSSL floor: one SHA-256 of a canonical request and one HMAC with a ready key.
let date = SigningDate(Date())
let probe = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api", keyCache: cache)
    .signHeaders(try SignableRequest(method: "GET", url: url, headers: [("Host", host)]), date: date)
let key = SigningKeyDerivation.derive(
    secret: credentials.secretAccessKey, scopeDate: date.scopeDate, region: "us-east-1", service: "execute-api")
let canonical = probe.canonicalRequestBytes
let stringToSign = probe.stringToSignBytes
let floor = rate {
    let digest = canonical.withUnsafeBytes { SHA256Hasher.hash($0) }
    let mac = stringToSign.withUnsafeBytes { key.authenticationCode(for: $0) }
    sink &+= digest.withUnsafeBytes { Int($0[0]) } &+ mac.withUnsafeBytes { Int($0[0]) }
}

// What the swift-http-types output alone costs per GET signature: copying the request and
// appending the X-Amz-Date and Authorization fields (the value is validated as it is stored).
let sampleSigned = try cachedSigner.signHeaders(readyGET, payload: .empty, date: date)
let sampleAuthorization = sampleSigned.authorization ?? ""
let httpFieldsFloor = rate {
    var request = readyGET
    request.headerFields.append(HTTPField(name: HTTPField.Name("X-Amz-Date")!, value: date.amzDate))
    request.headerFields.append(HTTPField(name: .authorization, value: sampleAuthorization))
    sink &+= request.headerFields.count
}

let postCached = try rate { try signOnce(method: .post, body: .bytes(megabyte), cache: cache) }
let sha256OfMegabyte = rate {
    sink &+= megabyte.withUnsafeBytes { SHA256Hasher.hash($0) }.withUnsafeBytes { Int($0[0]) }
}

let sigV4a = try rate {
    sink &+= try sigV4aSigner.signHeaders(readyGET, payload: .empty, date: SigningDate.now()).signedRequest().headerFields.count
}
// The P-256 signature alone, on the same key, for the share of SigV4a that is not ECDSA.
let v4aKey = try SigV4aKeyCache.shared.key(accessKeyId: credentials.accessKeyId, secret: credentials.secretAccessKey)
let v4aDigest = SHA256Hasher.hash(Array(url.utf8))
let ecdsaOnly = try rate { sink &+= try v4aKey.signature(for: v4aDigest).count }

/// Runs off the main actor, so the loop's awaits do not hop between executors.
nonisolated func verifyRepeatedly(_ verifier: SigV4Verifier, _ received: HTTPRequest, _ receivedAt: SigningDate, iterations: Int) async {
    for _ in 0..<iterations { _ = await verifier.verify(received, now: receivedAt) }
}

/// The best of five rounds of verifying `received`, in verifications per second. Runs off
/// the main actor, so the loop's awaits do not hop between executors.
nonisolated func measureVerification(_ verifier: SigV4Verifier, _ received: HTTPRequest, _ receivedAt: SigningDate, seconds: Double) async -> Double {
    await bestOfFive(seconds: seconds) {
        var calls = 0
        for _ in 0..<64 { if case .success = await verifier.verify(received, payload: .empty, now: receivedAt) { calls += 1 } }
        return calls
    }
}

/// The same in the signer's internal form.
nonisolated func measureVerification(_ verifier: SigV4Verifier, _ received: SignableRequest, _ receivedAt: SigningDate, seconds: Double) async -> Double {
    await bestOfFive(seconds: seconds) {
        var calls = 0
        for _ in 0..<64 { if case .success = await verifier.verify(received, now: receivedAt) { calls += 1 } }
        return calls
    }
}

/// The best of five rounds of `batch` (which returns how many calls succeeded), per second.
nonisolated func bestOfFive(seconds: Double, _ batch: () async -> Int) async -> Double {
    var best = 0.0
    for _ in 0..<5 {
        let clock = ContinuousClock()
        let start = clock.now
        var calls = 0
        while clock.now - start < .seconds(seconds / 5) { calls += await batch() }
        let elapsed = clock.now - start
        best = max(best, Double(calls) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
    }
    return best
}

let verifyRate = await measureVerification(tableVerifier, received, receivedAt, seconds: seconds)
let verifySignableRate = await measureVerification(tableVerifier, receivedSignable, receivedAt, seconds: seconds)
let verifyLookupRate = await measureVerification(verifier, received, receivedAt, seconds: seconds)

// The presigned form of the same GET (presignOnce): our signer makes the URL, the verifier checks it.
let presignRate = try rate { sink &+= try presignOnce().path?.utf8.count ?? 0 }
let verifyPresignedRate = await measureVerification(tableVerifier, try presignOnce(), receivedAt, seconds: seconds)

// Verification against the number of header fields (issue 36: cost linear in the fields):
// the same GET with N extra fields, all signed, and with N extra fields present but unsigned.
// The per-field cost should stay flat from 100 to 1,000 fields.
var headerCounts: [String: Double] = [:]
for count in [10, 100, 1_000] {
    var many = readyGET
    for index in 0..<count { many.headerFields.append(HTTPField(name: HTTPField.Name("x-field-\(index)")!, value: "value-\(index)")) }
    let allSigned = try cachedSigner.signHeaders(many, payload: .empty, date: SigningDate.now()).signedRequest()
    var presentUnsigned = received
    for index in 0..<count { presentUnsigned.headerFields.append(HTTPField(name: HTTPField.Name("x-extra-\(index)")!, value: "value-\(index)")) }
    headerCounts["verify_signed_fields_\(count)"] = await measureVerification(tableVerifier, allSigned, receivedAt, seconds: seconds)
    headerCounts["verify_unsigned_fields_\(count)"] = await measureVerification(tableVerifier, presentUnsigned, receivedAt, seconds: seconds)
}

// Streaming (aws-chunked) signing of a 1 MiB body in 64 KiB chunks: each chunk hashed and
// signed and its header line written, as a sender does that writes header, chunk and CRLF
// (AWSChunkedFileReader); and the same with each chunk copied into one framed array (frame).
let streamingSigner = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
let chunks = stride(from: 0, to: megabyte.count, by: 65_536).map { Array(megabyte[$0..<min($0 + 65_536, megabyte.count)]) }
let streaming = try rate {
    let request = try SignableRequest(method: "PUT", url: "https://bucket.s3.amazonaws.com/key")
    var upload = try streamingSigner.signStreaming(request, decodedLength: megabyte.count, chunkSize: 65_536, date: .now())
    for chunk in chunks { sink &+= chunk.withUnsafeBytes { upload.chunkHeader(for: $0).count } + chunk.count }
    sink &+= upload.finish().count
}
let streamingCopied = try rate {
    let request = try SignableRequest(method: "PUT", url: "https://bucket.s3.amazonaws.com/key")
    var upload = try streamingSigner.signStreaming(request, decodedLength: megabyte.count, chunkSize: 65_536, date: .now())
    for chunk in chunks { sink &+= upload.frame(chunk).count }
    sink &+= upload.finish().count
}

let report: [String: Double] = headerCounts.merging([
    "streaming_1mib": streaming, "streaming_1mib_copied": streamingCopied,
    "verify_get": verifyRate, "verify_get_signable": verifySignableRate, "verify_get_lookup": verifyLookupRate,
    "presign_get": presignRate, "verify_presigned_get": verifyPresignedRate,
    "sigv4a_get_cached": sigV4a, "ecdsa_p256_sign": ecdsaOnly,
    "get_cached": getCached, "get_cached_built": getBuilt, "get_uncached": getUncached, "get_cached_signable": getSignable, "openssl_floor": floor, "http_fields_floor": httpFieldsFloor,
    "post_1mib_cached": postCached, "openssl_sha256_1mib": sha256OfMegabyte,
]) { $1 }
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
if sink == 42 { print("") }

