import MultiAuthCrypto

/// Stage 1: the canonical request, in the order the AWS documentation gives:
/// method, canonical URI, canonical query, canonical headers, signed headers, payload hash.
struct CanonicalRequest {
    /// The canonical request bytes.
    let bytes: [UInt8]

    init(
        method: String, path: String, options: SigningOptions, wireQuery: String, extraQuery: [(String, String)],
        headers: CanonicalHeaders, signedHeaders: String, payloadHash: String
    ) {
        var out = [UInt8]()
        out.reserveCapacity(512 + path.utf8.count * 3)
        out.appendUTF8(method)
        out.append(UInt8(ascii: "\n"))
        CanonicalURI.append(path: path, options: options, to: &out)
        out.append(UInt8(ascii: "\n"))
        CanonicalQuery.append(wireQuery: wireQuery, extra: extraQuery, to: &out)
        out.append(UInt8(ascii: "\n"))
        headers.append(to: &out)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(signedHeaders)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(payloadHash)
        bytes = out
    }
}

/// The credential scope, `date/region/service/aws4_request`. The part after the date is
/// fixed for a signer, so it is prepared once as bytes and only the date changes.
struct CredentialScope: Sendable {
    let date: SigningDate
    let suffix: [UInt8]

    /// `/region/service/aws4_request`.
    static func suffix(region: String, service: String) -> [UInt8] {
        Array("/\(region)/\(service)/aws4_request".utf8)
    }

    /// `/service/aws4_request`: SigV4a's scope has no region.
    static func suffix(service: String) -> [UInt8] {
        Array("/\(service)/aws4_request".utf8)
    }

    func append(to output: inout [UInt8]) {
        output.appendUTF8(date.scopeDate)
        output.append(contentsOf: suffix)
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

    /// `algorithmLine` is the algorithm name and its newline, prepared once per signer.
    init(algorithmLine: [UInt8], scope: CredentialScope, canonicalRequest: CanonicalRequest) {
        var out = [UInt8]()
        out.reserveCapacity(192)
        out.append(contentsOf: algorithmLine)
        out.appendUTF8(scope.date.amzDate)
        out.append(UInt8(ascii: "\n"))
        scope.append(to: &out)
        out.append(UInt8(ascii: "\n"))
        canonicalRequest.bytes.withUnsafeBytes { raw in
            SHA256Hasher.hash(raw).withUnsafeBytes { Hex.append($0, to: &out) }
        }
        bytes = out
    }
}
