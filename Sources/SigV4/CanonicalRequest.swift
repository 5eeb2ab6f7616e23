/// Stage 1: the canonical request, in the order the AWS documentation gives:
/// method, canonical URI, canonical query, canonical headers, signed headers, payload hash.
struct CanonicalRequest {
    /// The canonical request bytes.
    let bytes: [UInt8]

    init(
        method: String, path: String, options: SigningOptions, query: inout CanonicalQuery,
        headerBlock: [UInt8], signedHeaders: String, payloadHash: String
    ) {
        var out = [UInt8]()
        out.reserveCapacity(256 + headerBlock.count + path.utf8.count * 3)
        out.appendUTF8(method)
        out.append(UInt8(ascii: "\n"))
        CanonicalURI.append(path: path, options: options, to: &out)
        out.append(UInt8(ascii: "\n"))
        query.appendSorted(to: &out)
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: headerBlock)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(signedHeaders)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(payloadHash)
        bytes = out
    }
}

/// Stage 2: the string to sign — algorithm, request time, credential scope and the hex
/// SHA-256 of the canonical request, one per line.
struct StringToSign {
    let bytes: [UInt8]

    init(algorithm: String, date: SigningDate, scope: String, canonicalRequest: CanonicalRequest) {
        var out = [UInt8]()
        out.reserveCapacity(algorithm.utf8.count + scope.utf8.count + 84)
        out.appendUTF8(algorithm)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(date.amzDate)
        out.append(UInt8(ascii: "\n"))
        out.appendUTF8(scope)
        out.append(UInt8(ascii: "\n"))
        canonicalRequest.bytes.withUnsafeBytes { raw in
            SHA256.hash(raw).withUnsafeBytes { Hex.append($0, to: &out) }
        }
        bytes = out
    }
}

import MultiAuthCrypto
