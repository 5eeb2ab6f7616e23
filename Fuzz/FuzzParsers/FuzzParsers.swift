// libFuzzer entry point for the parsers that read untrusted input: raw HTTP request text,
// wire URLs, the canonicalization stages (by signing whatever parsed), the verifier, the
// shared AWS config files, JWTs (decoding and ID-token validation), JWK sets,
// awsconfiguration.json and SAML responses and metadata. The first
// input byte picks the target, unless MULTIAUTH_FUZZ_TARGET names one (scripts/fuzz TARGET).
// scripts/fuzz builds it with -sanitize=fuzzer,address -DFUZZING (libFuzzer supplies main).
// A plain build replays files instead: `FuzzParsers INPUT...` (crash reproduction).
import MultiAuthAppSync
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto
import MultiAuthCurl
import MultiAuthSigV4
import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let fuzzCredentials = AWSCredentials(accessKeyId: "AKIDFUZZ", secretAccessKey: "fuzz-secret")
let fuzzDate = SigningDate(secondsSince1970: 1_440_938_160)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let input = Array(bytes.dropFirst())
    fuzzTargets[fixedTarget ?? Int(bytes[0]) % fuzzTargets.count].run(input)
    return 0
}

/// The targets, in selector order (the first input byte modulo their count).
let fuzzTargets: [(name: String, run: @Sendable ([UInt8]) -> Void)] = [
    ("request", fuzzRequestText), ("url", fuzzURL), ("verifier", fuzzVerifier), ("config", fuzzConfigFile),
    ("jwt", fuzzJWT), ("jwks", fuzzJWKS), ("awsconfig", fuzzAWSConfiguration), ("saml", fuzzSAML),
]

/// MULTIAUTH_FUZZ_TARGET pins every input to one target.
let fixedTarget: Int? = ProcessInfo.processInfo.environment["MULTIAUTH_FUZZ_TARGET"].flatMap { name in
    fuzzTargets.firstIndex { $0.name == name }
}

/// A key set with one RSA and one P-256 key (public values only, made for the fuzzer).
let fuzzKeys = JSONWebKeySet(keys: [
    JSONWebKey(kty: "RSA", kid: "rs1", alg: "RS256", use: "sig", crv: nil, n: String(repeating: "u", count: 342) + "w", e: "AQAB", x: nil, y: nil),
    JSONWebKey(
        kty: "EC", kid: "ec1", alg: "ES256", use: "sig", crv: "P-256", n: nil, e: nil,
        x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"),
])

func fuzzJWT(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    if let token = try? JSONWebToken(parsing: text) {
        _ = token.claims.description
        _ = token.claims.audiences
    }
    let validator = IDTokenValidator(issuer: "https://issuer.example", clientId: "client", keys: fuzzKeys, clock: TimeSource { 1_800_000_000 })
    _ = try? validator.validate(text, nonce: "n")
}

func fuzzAWSConfiguration(_ input: [UInt8]) {
    guard let configuration = try? AWSConfiguration.parse(input, file: "fuzz") else { return }
    _ = configuration.problems.map(\.description)
    for entry in configuration.appSync {
        _ = RealtimeHandshake.realtimeEndpoint(for: entry.apiURL)
        _ = ClientFactory(configuration: configuration, cacheDirectory: "/nonexistent", http: CurlHTTPClient()).databasePaths(for: entry)
    }
}

func fuzzJWKS(_ input: [UInt8]) {
    guard let keys = try? JSONDecoding.decode(JSONWebKeySet.self, from: input, what: "the key set") else { return }
    let validator = IDTokenValidator(issuer: "i", clientId: "c", keys: keys, clock: TimeSource { 0 })
    for alg in ["RS256", "ES256"] {
        let header = Base64.encodeURL(Array(#"{"alg":"\#(alg)"}"#.utf8))
        _ = try? validator.validate(header + ".e30." + Base64.encodeURL([UInt8](repeating: 1, count: 64)))
    }
}

func fuzzRequestText(_ input: [UInt8]) {
    guard let text = try? HTTPRequestText(parsing: input), let request = try? text.signableRequest() else { return }
    for service in ["service", "s3"] {
        let signer = SigV4Signer(credentials: fuzzCredentials, region: "us-east-1", service: service, keyCache: nil)
        let internalForm = try? signer.signHeaders(request, date: fuzzDate)
        _ = try? signer.presign(request, expires: 60, date: fuzzDate).signedURL
        // The swift-http-types path reads the same request from HTTPFields: whenever the request
        // can be carried there (one Host, which becomes the authority), both paths must
        // canonicalize it to the same bytes.
        guard let internalForm, request.headers.fields.count(where: { $0.name.lowercased() == "host" }) <= 1,
            let http = try? request.httpRequest(),
            let publicForm = try? signer.signHeaders(http, payload: request.payload, date: fuzzDate)
        else { continue }
        precondition(
            publicForm.canonicalRequestBytes == internalForm.canonicalRequestBytes,
            "HTTPRequest and internal canonical requests differ")
        _ = try? signer.presign(http, payload: request.payload, expires: 60, date: fuzzDate).signedRequest()
    }
}

func fuzzURL(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    // What local servers make of a Host, and how messages show a URL.
    precondition(!HostField.isAddressOrLocalhost(text) || HostField.hostName(text) != nil)
    _ = Redaction.url(text)
    guard let request = try? SignableRequest(method: "GET", url: text) else { return }
    let signer = SigV4Signer(credentials: fuzzCredentials, region: "us-east-1", service: "execute-api", keyCache: nil)
    _ = try? signer.signHeaders(request, date: fuzzDate).stringToSign
}

func fuzzVerifier(_ input: [UInt8]) {
    guard let text = try? HTTPRequestText(parsing: input), let request = try? text.signableRequest() else { return }
    let verifier = SigV4Verifier(region: "us-east-1", service: "service") { _ in VerifierCredential(secretAccessKey: "fuzz-secret") }
    let done = Atomic(false)
    Task {
        _ = await verifier.verify(request, now: fuzzDate)
        done.store(true, ordering: .releasing)
    }
    while !done.load(ordering: .acquiring) {}
}

func fuzzConfigFile(_ input: [UInt8]) {
    _ = try? SharedConfigFiles.parse(contents: String(decoding: input, as: UTF8.self), path: "fuzz", isConfig: input.count % 2 == 0)
}

import Synchronization

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt
#endif

/// The entry point. Under libFuzzer (FUZZING) it hands over to libFuzzer's driver, since
/// SwiftPM routes an executable's `main` to this type; otherwise it replays input files and
/// can run a bounded random pass over them (``ReplayAndMutate``).
@main
struct FuzzEntry {
    static func main() {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv, { fuzz($0, $1) })
        if status != 0 { fatalError("libFuzzer driver exited with \(status)") }
        #else
        ReplayAndMutate.main(Array(CommandLine.arguments.dropFirst()))
        #endif
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
