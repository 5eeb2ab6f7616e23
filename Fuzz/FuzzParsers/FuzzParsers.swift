// libFuzzer entry point for the parsers that read untrusted input: raw HTTP request text,
// wire URLs, the canonicalization stages (by signing whatever parsed), the verifier, and
// the shared AWS config files. The first input byte picks the target.
// scripts/fuzz builds it with -sanitize=fuzzer,address -DFUZZING (libFuzzer supplies main).
// A plain build replays files instead: `FuzzParsers INPUT...` (crash reproduction).
import CredentialProviders
import SigV4

let fuzzCredentials = AWSCredentials(accessKeyId: "AKIDFUZZ", secretAccessKey: "fuzz-secret")
let fuzzDate = SigningDate(secondsSince1970: 1_440_938_160)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let input = Array(bytes.dropFirst())
    switch bytes[0] % 4 {
    case 0: fuzzRequestText(input)
    case 1: fuzzURL(input)
    case 2: fuzzVerifier(input)
    default: fuzzConfigFile(input)
    }
    return 0
}

func fuzzRequestText(_ input: [UInt8]) {
    guard let text = try? HTTPRequestText(parsing: input), let request = try? text.signableRequest() else { return }
    for service in ["service", "s3"] {
        let signer = SigV4Signer(credentials: fuzzCredentials, region: "us-east-1", service: service, keyCache: nil)
        _ = try? signer.signHeaders(request, date: fuzzDate).canonicalRequest
        _ = try? signer.presign(request, expires: 60, date: fuzzDate).signedURL
    }
}

func fuzzURL(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
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
/// SwiftPM routes an executable's `main` to this type; otherwise it replays input files.
@main
struct FuzzEntry {
    static func main() {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv, { fuzz($0, $1) })
        if status != 0 { fatalError("libFuzzer driver exited with \(status)") }
        #else
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            bytes.withUnsafeBytes { _ = fuzz($0.baseAddress, $0.count) }
            print("replayed \(path)")
        }
        #endif
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
