import MultiAuthCrypto

/// Stage 1: the canonical request, written in one pass in the order the AWS documentation
/// gives: method, canonical URI, canonical query, canonical headers, signed headers,
/// payload hash, into a buffer sized up front, and kept as an array.
struct CanonicalRequest {
    /// The canonical request bytes.
    let bytes: [UInt8]
    /// Where the signed-headers line lies in `bytes`.
    let signedHeadersRange: Range<Int>

    /// Writes the canonical request of a request's wire path and query (without `?`), plus
    /// `extraQuery` pairs already in canonical form, under `options`. `headers` must be sorted.
    init(
        method: String, path: UnsafeBufferPointer<UInt8>, query: UnsafeBufferPointer<UInt8>, extraQuery: UnsafeBufferPointer<UInt8>,
        headers: CanonicalHeaders, payloadHash: String, options: SigningOptions
    ) {
        let capacity = method.utf8.count + CanonicalURI.capacity(forPathOf: path.count)
            + CanonicalQuery.capacity(wireQueryCount: query.count, extraCount: extraQuery.count)
            + headers.blockCapacity + headers.signedHeadersCapacity + payloadHash.utf8.count + 5
        var signedHeaders = 0..<0
        // The strings are borrowed as bytes first: a closure capturing them retains them.
        bytes = method.withUTF8InPlace { method in
            payloadHash.withUTF8InPlace { payloadHash in
                ByteWriter.bytes(capacity: capacity) { out in
                    out.write(method)
                    out.write(UInt8(ascii: "\n"))
                    CanonicalURI.write(path: path, options: options, to: &out)
                    out.write(UInt8(ascii: "\n"))
                    CanonicalQuery.write(wireQuery: query, extra: extraQuery, to: &out)
                    out.write(UInt8(ascii: "\n"))
                    headers.writeBlock(to: &out)
                    out.write(UInt8(ascii: "\n"))
                    let start = out.count
                    headers.writeSignedHeaders(to: &out)
                    signedHeaders = start..<out.count
                    out.write(UInt8(ascii: "\n"))
                    out.write(payloadHash)
                }
            }
        }
        signedHeadersRange = signedHeaders
    }

    /// The signed-headers line, `a;b;c`.
    var signedHeaders: String { String(decoding: bytes[signedHeadersRange], as: UTF8.self) }
}

/// The credential scope, `date/region/service/aws4_request`. The part after the date is
/// fixed for a signer, so it is prepared once as bytes and only the date changes.
///
/// It borrows the suffix: use a scope only while the signer setup it came from is alive.
struct CredentialScope {
    let date: SigningDate
    let suffix: UnsafeBufferPointer<UInt8>

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

    func write(to output: inout ByteWriter) {
        date.writeScopeDate(to: &output)
        output.write(suffix)
    }

    var string: String {
        var out = [UInt8]()
        append(to: &out)
        return String(utf8Bytes: out)
    }
}

/// Stage 2: the string to sign — algorithm, request time, credential scope and the hex
/// SHA-256 of the canonical request, one per line.
enum StringToSign {
    /// Runs `body` with the string to sign in temporary storage. `algorithmLine` is the
    /// algorithm name and its newline, prepared once per signer.
    static func withBytes<Result, Failure: Error>(
        algorithmLine: UnsafeBufferPointer<UInt8>, scope: CredentialScope, canonicalRequest: [UInt8],
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let capacity = algorithmLine.count + 18 + 8 + scope.suffix.count + 64
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { (buffer) throws(Failure) -> Result in
            var out = ByteWriter(buffer)
            out.write(algorithmLine)
            out.write(scope.date.amzDate)
            out.write(UInt8(ascii: "\n"))
            scope.write(to: &out)
            out.write(UInt8(ascii: "\n"))
            canonicalRequest.withUnsafeBytes { raw in
                SHA256Hasher.hash(raw).withUnsafeBytes { out.writeHex($0) }
            }
            return try body(out.written)
        }
    }

    /// The string to sign as bytes.
    static func bytes(algorithmLine: UnsafeBufferPointer<UInt8>, scope: CredentialScope, canonicalRequest: [UInt8]) -> [UInt8] {
        withBytes(algorithmLine: algorithmLine, scope: scope, canonicalRequest: canonicalRequest) { Array($0) }
    }
}
