// Roles Anywhere's CreateSession signing, per second and CPU per signature, for a key read from
// a file and for a key in a PKCS#11 token (SoftHSM). Arguments: CERT KEY [PKCS11_URI MODULE],
// then more CERT KEY … pairs after "--". Prints one JSON object, name → signatures per second.
import Foundation
import HTTPTypes
import MultiAuthCore
import MultiAuthPKCS11
import MultiAuthSigV4

let clock = ContinuousClock()
let body = Array(#"{"durationSeconds":3600,"profileArn":"arn:aws:rolesanywhere:us-east-1:123456789012:profile/p","roleArn":"arn:aws:iam::123456789012:role/r","trustAnchorArn":"arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/t"}"#.utf8)
let request = try HTTPRequest(method: .post, wireURL: "https://rolesanywhere.us-east-1.amazonaws.com/sessions", headerFields: [.contentType: "application/json"])

func rate(_ signer: X509Signer, seconds: Double = 1.5) async throws -> Double {
    let date = SigningDate.now()
    for _ in 0..<20 { _ = try await signer.signHeaders(request, payload: .bytes(body), date: date) }
    var count = 0
    let start = clock.now
    while clock.now - start < .milliseconds(Int(seconds * 1000)) {
        _ = try await signer.signHeaders(request, payload: .bytes(body), date: date)
        count += 1
    }
    let elapsed = clock.now - start
    return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

var arguments = Array(CommandLine.arguments.dropFirst())
var results: [String] = []
while arguments.count >= 3 {
    let name = arguments.removeFirst()
    let certificate = try read(arguments.removeFirst())
    let key = arguments.removeFirst()
    let identity: X509SigningIdentity
    if key.hasPrefix("pkcs11:") {
        let module = arguments.removeFirst()
        identity = try X509SigningIdentity(certificate: certificate, key: try await PKCS11Key.open(try PKCS11URI(key), module: module))
    } else {
        identity = try X509SigningIdentity.pem(certificate: certificate, privateKey: try read(key))
    }
    results.append("\"\(name)\": \(Int(try await rate(X509Signer(identity: identity, region: "us-east-1"))))")
}
print("{" + results.joined(separator: ", ") + "}")
