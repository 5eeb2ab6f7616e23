import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthSigV4

/// A DPoP proof (RFC 9449) as botocore builds it for the sign-in service: an ES256 JWT whose
/// header carries the public key (`typ: dpop+jwt`, `jwk` with `kty`, `x`, `y`, `crv`) and whose
/// payload names the call (`htm`, `htu`, `iat`, a fresh `jti`).
enum DPoPProof {
    /// `request` with a `DPoP` header proving possession of `key` for it (its method, and its
    /// URL without query or fragment, as RFC 9449 §4.2 has `htu`): the request signer of the
    /// sign-in service's unsigned calls, a new proof per attempt.
    static func attach(to request: HTTPRequest, key: PrivateKey, now: Double) throws(SigningError) -> HTTPRequest {
        var request = request
        let path = (request.path ?? "/").prefix { $0 != "?" && $0 != "#" }
        let url = "\(request.scheme ?? "https")://\(request.authority ?? "")\(path)"
        do { request.headerFields[HTTPField.Name("DPoP")!] = try make(key: key, method: request.method.rawValue, url: url, now: now) } catch {
            throw .certificate(.signingFailed(reason: "the DPoP proof: \(error)"))
        }
        return request
    }

    /// The proof for `method` on `url` at `now` (seconds since 1970), signed with `key`.
    static func make(key: PrivateKey, method: String = "POST", url: String, now: Double) throws(CredentialsError) -> String {
        guard let point = key.publicCoordinates else { throw .invalidSetting(source: "the login session's dpopKey", problem: "is not a P-256 key") }
        let jwk: JSONValue = .object(["kty": .string("EC"), "x": .string(Base64.encodeURL(point.x)), "y": .string(Base64.encodeURL(point.y)), "crv": .string("P-256")])
        let header = JSONValue.object(["typ": .string("dpop+jwt"), "alg": .string("ES256"), "jwk": jwk])
        let jti: String
        do { jti = Hex.encode(try SecureRandom.bytes(count: 16)) } catch { throw .invalidSetting(source: "DPoP", problem: "no random bytes: \(error)") }
        let payload = JSONValue.object(["htm": .string(method), "htu": .string(url), "iat": .number(now.rounded(.down)), "jti": .string(jti)])
        let input = Base64.encodeURL(Array(header.description.utf8)) + "." + Base64.encodeURL(Array(payload.description.utf8))
        do { return input + "." + Base64.encodeURL(try key.es256Signature(Array(input.utf8))) } catch {
            throw .invalidSetting(source: "the login session's dpopKey", problem: "cannot sign: \(error)")
        }
    }
}
