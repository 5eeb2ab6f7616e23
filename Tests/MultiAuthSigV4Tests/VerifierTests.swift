import MultiAuthCrypto
import MultiAuthSigV4
import Testing

/// The verifier accepts whatever the signer signs and rejects any single-byte change to
/// method, path, query, a signed header or a hashed body.
@Suite(.timeLimit(.minutes(5))) struct VerifierTests {
    static let secret = "verifier-test-secret-0000000000000000000"
    /// The two ways a verifier finds a secret; every test runs with both.
    enum LookupForm: CaseIterable, Sendable {
        case function, table
    }

    func verifier(_ form: LookupForm) -> SigV4Verifier {
        switch form {
        case .function:
            SigV4Verifier(region: "us-east-1", service: "execute-api") { id in
                id == "AKIDVERIFY" ? VerifierCredential(secretAccessKey: VerifierTests.secret) : nil
            }
        case .table:
            SigV4Verifier(region: "us-east-1", service: "execute-api", credentials: ["AKIDVERIFY": VerifierCredential(secretAccessKey: VerifierTests.secret)])
        }
    }
    let signer = SigV4Signer(
        credentials: AWSCredentials(accessKeyId: "AKIDVERIFY", secretAccessKey: VerifierTests.secret),
        region: "us-east-1", service: "execute-api")
    let now = SigningDate(secondsSince1970: 1_795_329_000)

    /// Deterministic pseudo-random requests (a linear congruential generator, seeded).
    static func requests(count: Int) throws -> [SignableRequest] {
        var state: UInt64 = 20_261_122
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let segments = ["items", "a%20b", "%E1%88%B4", "x.y", "~tilde", "UPPER", "42"]
        let pairs = ["a=1", "b=%2F", "k=2", "k=1", "q=a%2Bb", "flag", "e=", "z=%3D"]
        return try (0..<count).map { _ in
            let path = "/" + (0..<(1 + next(3))).map { _ in segments[next(segments.count)] }.joined(separator: "/")
            let query = (0..<next(4)).map { _ in pairs[next(pairs.count)] }.joined(separator: "&")
            let method = ["GET", "POST", "PUT", "DELETE"][next(4)]
            let body: Payload = method == "GET" ? .empty : .bytes(Array("body-\(next(1000))".utf8))
            return try SignableRequest(
                method: method, url: "https://api.example.com" + path + (query.isEmpty ? "" : "?" + query),
                headers: [("Content-Type", "text/plain"), ("X-Custom", "value \(next(100))")], payload: body)
        }
    }

    @Test(arguments: LookupForm.allCases) func everythingTheSignerSignsIsAccepted(form: LookupForm) async throws {
        for request in try Self.requests(count: 60) {
            let header = try signer.signHeaders(request, date: now).signable
            #expect(await verifier(form).verify(header, now: now) == .success("AKIDVERIFY"))
            let query = try signer.presign(request, expires: 300, date: now).signable
            #expect(await verifier(form).verify(query, now: now) == .success("AKIDVERIFY"), "\(query.url)")
        }
    }

    /// In both forms: for a presigned URL the query's flips include the `X-Amz-*` parameters.
    @Test(arguments: LookupForm.allCases) func anySingleByteChangeIsRejected(form: LookupForm) async throws {
        for request in try Self.requests(count: 12) {
            let header = try signer.signHeaders(request, date: now).signable
            let presigned = try signer.presign(request, expires: 300, date: now).signable
            for mutated in mutations(of: header) + mutations(of: presigned) {
                let result = await verifier(form).verify(mutated, now: now)
                #expect(result != .success("AKIDVERIFY"), "accepted a change: \(mutated.method) \(mutated.url)")
            }
        }
    }

    func mutations(of request: SignableRequest) -> [SignableRequest] {
        func flipped(_ text: String, at index: Int) -> String {
            var bytes = Array(text.utf8)
            bytes[index] = bytes[index] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [SignableRequest] = []
        for index in request.method.utf8.indices.map({ request.method.utf8.distance(from: request.method.utf8.startIndex, to: $0) }) {
            var copy = request
            copy.method = flipped(request.method, at: index)
            out.append(copy)
        }
        for index in 0..<request.path.utf8.count where Array(request.path.utf8)[index] != UInt8(ascii: "/") {
            var copy = request
            copy.path = flipped(request.path, at: index)
            out.append(copy)
        }
        for index in 0..<request.query.utf8.count where Array(request.query.utf8)[index] != UInt8(ascii: "&") {
            var copy = request
            copy.query = flipped(request.query, at: index)
            out.append(copy)
        }
        for (position, field) in request.headers.fields.enumerated() where ["x-custom", "content-type", "host"].contains(field.name.lowercased()) {
            for index in 0..<field.value.utf8.count {
                var fields = request.headers.fields
                fields[position].value = flipped(field.value, at: index)
                var copy = request
                copy.headers = HTTPHeaderList(fields)
                out.append(copy)
            }
        }
        if case .bytes(let body) = request.payload {
            for index in body.indices {
                var changed = body
                changed[index] ^= 0x01
                var copy = request
                copy.payload = .bytes(changed)
                out.append(copy)
            }
        }
        return out
    }

    @Test(arguments: LookupForm.allCases) func timeWindowsAndScope(form: LookupForm) async throws {
        let request = try SignableRequest(method: "GET", url: "https://api.example.com/x")
        let header = try signer.signHeaders(request, date: now).signable
        #expect(await verifier(form).verify(header, now: SigningDate(secondsSince1970: now.secondsSince1970 + 16 * 60)) == .failure(.expired))
        #expect(await verifier(form).verify(header, now: SigningDate(secondsSince1970: now.secondsSince1970 - 16 * 60)) == .failure(.notYetValid))
        let query = try signer.presign(request, expires: 60, date: now).signable
        #expect(await verifier(form).verify(query, now: SigningDate(secondsSince1970: now.secondsSince1970 + 61)) == .failure(.expired))
        let otherRegion = SigV4Verifier(region: "eu-west-1", service: "execute-api") { _ in VerifierCredential(secretAccessKey: Self.secret) }
        #expect(await otherRegion.verify(header, now: now) == .failure(.scopeMismatch("region")))
    }

    @Test(arguments: LookupForm.allCases) func eachScopeMismatchNamesItsPart(form: LookupForm) async throws {
        let header = try signer.signHeaders(try SignableRequest(method: "GET", url: "https://api.example.com/x"), date: now).signable
        let credential = "AKIDVERIFY/\(now.scopeDate)/us-east-1/execute-api/aws4_request"
        let cases: [(String, VerificationFailure)] = [
            ("AKIDVERIFY/20000101/us-east-1/execute-api/aws4_request", .scopeMismatch("date")),
            ("AKIDVERIFY/\(now.scopeDate)/us-east-1/s3/aws4_request", .scopeMismatch("service")),
            ("AKIDVERIFY/\(now.scopeDate)/us-east-1/execute-api/aws4_requesT", .malformedAuthorization("credential scope")),
            ("AKIDVERIFY/\(now.scopeDate)/us-east-1/execute-api", .malformedAuthorization("credential scope")),
            ("AKIDVERIFY", .malformedAuthorization("Credential")),
        ]
        for (replacement, failure) in cases {
            var request = header
            let authorization = try #require(request.headers.first(named: "authorization"))
            request.headers.removeAll(named: "authorization")
            request.headers.append(name: "Authorization", value: authorization.replacingOccurrences(of: credential, with: replacement))
            #expect(await verifier(form).verify(request, now: now) == .failure(failure), "\(replacement)")
        }
    }

    @Test(arguments: LookupForm.allCases) func headersAddedAfterSigningAreIgnoredAndMissingSignedOnesRejected(form: LookupForm) async throws {
        let request = try SignableRequest(
            method: "GET", url: "https://api.example.com/x", headers: [("X-Custom", "a"), ("x-custom", "b")])
        let signed = try signer.signHeaders(request, date: now).signable
        var extended = signed
        extended.headers.append(name: "User-Agent", value: "proxy/1.0")
        extended.headers.insert(name: "Via", value: "1.1 gateway", at: 0)
        #expect(await verifier(form).verify(extended, now: now) == .success("AKIDVERIFY"))
        var stripped = signed
        stripped.headers.removeAll(named: "x-custom")
        #expect(await verifier(form).verify(stripped, now: now) == .failure(.signatureMismatch))
        var unsignedHost = signed
        let authorization = try #require(signed.headers.first(named: "authorization"))
        unsignedHost.headers.removeAll(named: "authorization")
        unsignedHost.headers.append(name: "Authorization", value: authorization.replacingOccurrences(of: "SignedHeaders=host;", with: "SignedHeaders="))
        #expect(await verifier(form).verify(unsignedHost, now: now) == .failure(.hostNotSigned))
    }

    /// Regression: the fuzzer found a presigned request whose query held a pair with an
    /// empty key ("=x"), which crashed the verifier (Fuzz/corpus/regression-empty-query-key).
    @Test(arguments: LookupForm.allCases) func presignedQueriesWithEmptyKeysAreRejectedNotCrashing(form: LookupForm) async throws {
        let presigned = try signer.presign(try SignableRequest(method: "GET", url: "https://api.example.com/x?a=1"), expires: 60, date: now)
        for extra in ["=x", "=", "&=&", "==", "=%2F"] {
            var request = presigned.signable
            request.query += "&" + extra
            let result = await verifier(form).verify(request, now: now)
            #expect(result == .failure(.signatureMismatch), "\(extra)")
        }
    }

    /// Presigning parameters are recognized by their decoded names, as AWS reads a query:
    /// `X%2DAmz-Date` is `X-Amz-Date`, so re-encoding a name neither hides nor breaks it.
    @Test(arguments: LookupForm.allCases) func presigningParametersAreRecognizedByTheirDecodedNames(form: LookupForm) async throws {
        let presigned = try signer.presign(try SignableRequest(method: "GET", url: "https://api.example.com/x?a=1"), expires: 60, date: now)
        var encoded = presigned.signable
        encoded.query = encoded.query.replacingOccurrences(of: "X-Amz-Date=", with: "X%2DAmz-Date=")
        #expect(await verifier(form).verify(encoded, now: now) == .success("AKIDVERIFY"))
        var doubled = encoded
        doubled.query += "&X-Amz-Date=20261122T000000Z"
        #expect(await verifier(form).verify(doubled, now: now) == .failure(.repeatedParameter("X-Amz-Date")))
    }

    @Test(arguments: LookupForm.allCases) func hostileInputIsRejectedNotThrown(form: LookupForm) async throws {
        var request = try SignableRequest(method: "GET", url: "https://api.example.com/x")
        #expect(await verifier(form).verify(request, now: now) == .failure(.missingAuthorization))
        let signed = try signer.signHeaders(request, date: now).signable
        request = signed
        request.headers.append(name: "Authorization", value: "again")
        #expect(await verifier(form).verify(request, now: now) == .failure(.repeatedParameter("Authorization")))
        request = signed
        request.headers.append(name: "X-Amz-Date", value: "20261122T000000Z")
        #expect(await verifier(form).verify(request, now: now) == .failure(.repeatedParameter("X-Amz-Date")))
        let presigned = try signer.presign(try SignableRequest(method: "GET", url: "https://api.example.com/x"), expires: 60, date: now)
        var doubled = presigned.signable
        doubled.query += "&X-Amz-Signature=" + presigned.signature
        #expect(await verifier(form).verify(doubled, now: now) == .failure(.repeatedParameter("X-Amz-Signature")))
        for garbage in ["AWS4-HMAC-SHA256", "AWS4-HMAC-SHA256 Credential", "Basic abc", "AWS4-HMAC-SHA256 Credential=x, Credential=y"] {
            var bad = signed
            bad.headers.removeAll(named: "authorization")
            bad.headers.append(name: "Authorization", value: garbage)
            if case .success = await verifier(form).verify(bad, now: now) { Issue.record("accepted '\(garbage)'") }
        }
        var unknown = signed
        unknown.headers.removeAll(named: "authorization")
        unknown.headers.append(
            name: "Authorization",
            value: signed.headers.first(named: "authorization")!.replacingOccurrences(of: "AKIDVERIFY", with: "AKIDOTHER"))
        #expect(await verifier(form).verify(unknown, now: now) == .failure(.unknownAccessKey("AKIDOTHER")))
    }
}

import Foundation
