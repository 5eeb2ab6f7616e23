import MultiAuthCrypto

/// Stage 1: the canonical request, in the order the AWS documentation gives:
/// method, canonical URI, canonical query, canonical headers, signed headers, payload hash.
struct CanonicalRequest {
    /// The canonical request bytes.
    let bytes: [UInt8]

    init(
        method: String, path: String, options: SigningOptions, query: inout CanonicalQuery,
        headers: CanonicalHeaders, signedHeaders: String, payloadHash: String
    ) {
        var out = [UInt8]()
        out.reserveCapacity(512 + path.utf8.count * 3)
        out.appendUTF8(method)
        out.append(UInt8(ascii: "\n"))
        CanonicalURI.append(path: path, options: options, to: &out)
        out.append(UInt8(ascii: "\n"))
        query.appendSorted(to: &out)
        out.append(UInt8(ascii: "\n"))
        headers.append(to: &out)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(signedHeaders)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(payloadHash)
        bytes = out
    }
}

/// The credential scope, `date/region/service/aws4_request`, written where it is needed
/// rather than kept as a string.
struct CredentialScope {
    let date: SigningDate
    let region: String
    let service: String

    func append(to output: inout [UInt8]) {
        output.appendUTF8(date.scopeDate)
        output.append(UInt8(ascii: "/"))
        output.appendUTF8(region)
        output.append(UInt8(ascii: "/"))
        output.appendUTF8(service)
        output.appendUTF8("/aws4_request")
    }

    var string: String {
        var out = [UInt8]()
        append(to: &out)
        return String(utf8Bytes: out)
    }
}

/// Stage 2: the string to sign — algorithm, request time, credential scope and the hex
/// SHA-256 of the canonical request, one per line.
struct StringToSign {
    let bytes: [UInt8]

    init(algorithm: String, scope: CredentialScope, canonicalRequest: CanonicalRequest) {
        var out = [UInt8]()
        out.reserveCapacity(192)
        out.appendUTF8(algorithm)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(scope.date.amzDate)
        out.append(UInt8(ascii: "\n"))
        scope.append(to: &out)
        out.append(UInt8(ascii: "\n"))
        canonicalRequest.bytes.withUnsafeBytes { raw in
            SHA256.hash(raw).withUnsafeBytes { Hex.append($0, to: &out) }
        }
        bytes = out
    }
}
