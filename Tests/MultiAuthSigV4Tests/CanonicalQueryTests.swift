import MultiAuthSigV4
import Testing

/// Canonical query rules: decode, re-encode with the unreserved set, sort by key then value.
@Suite(.timeLimit(.minutes(5))) struct CanonicalQueryTests {
    @Test func sortsByKeyThenValueComparingEncodedBytes() throws {
        #expect(try canonicalQuery("b=2&a=1") == "a=1&b=2")
        #expect(try canonicalQuery("a=2&a=1&a=10&a=B") == "a=1&a=10&a=2&a=B")
        #expect(try canonicalQuery("Param-3=a&Param=b&%E1%88%B4=c") == "%E1%88%B4=c&Param=b&Param-3=a")
    }

    @Test func keysWithoutEqualsAndEmptyValues() throws {
        #expect(try canonicalQuery("versioning") == "versioning=")
        #expect(try canonicalQuery("b=&a") == "a=&b=")
        #expect(try canonicalQuery("a=1&&b=2&") == "a=1&b=2")
    }

    @Test func escapesAreNormalizedToUppercaseAndUnreservedAreDecoded() throws {
        #expect(try canonicalQuery("k=%2f%7E%41") == "k=%2F~A")
    }

    @Test func plusIsALiteralPlusAndReservedCharactersAreEncoded() throws {
        #expect(try canonicalQuery("q=a+b") == "q=a%2Bb")
        #expect(try canonicalQuery("q=a:b/c,d") == "q=a%3Ab%2Fc%2Cd")
        #expect(try canonicalQuery("q=ሴ") == "q=%E1%88%B4")
    }

    @Test func aLonePercentIsLiteral() throws {
        #expect(try canonicalQuery("q=100%&r=%zz") == "q=100%25&r=%25zz")
    }

    @Test func equalsInAValueStaysInTheValue() throws {
        #expect(try canonicalQuery("a=b=c") == "a=b%3Dc")
    }

    /// A presigned request's own pairs and the signer's `X-Amz-*` pairs form one sorted list:
    /// uppercase `X` sorts before lowercase keys, `Bogus` between `Algorithm` and `Credential`,
    /// and a repeated key by its value (`0` before `2`).
    @Test func presignedParametersSortAmongTheRequestsOwnPairs() throws {
        let request = try SignableRequest(
            method: "GET", authority: "example.com", path: "/", query: "z=1&X-Amz-Bogus=2&a=3&X-Amz-Date=0",
            headers: [("Host", "example.com")], payload: .empty)
        let signer = SigV4Signer(credentials: exampleCredentials, region: "us-east-1", service: "service")
        let canonical = try signer.presign(request, expires: 60, date: exampleDate).canonicalRequest
        let query = canonical.split(separator: "\n", omittingEmptySubsequences: false)[2]
        let expected = [
            "X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-Bogus=2", "X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fservice%2Faws4_request",
            "X-Amz-Date=0", "X-Amz-Date=20150830T123600Z", "X-Amz-Expires=60", "X-Amz-SignedHeaders=host", "a=3", "z=1",
        ].joined(separator: "&")
        #expect(query == expected)
    }

    @Test func presignedParametersAloneAreTheQuery() throws {
        let request = try SignableRequest(
            method: "GET", authority: "example.com", path: "/", query: "", headers: [("Host", "example.com")], payload: .empty)
        let signer = SigV4Signer(credentials: exampleCredentials, region: "us-east-1", service: "service")
        let canonical = try signer.presign(request, expires: 60, date: exampleDate).canonicalRequest
        let expected = [
            "X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fservice%2Faws4_request",
            "X-Amz-Date=20150830T123600Z", "X-Amz-Expires=60", "X-Amz-SignedHeaders=host",
        ].joined(separator: "&")
        #expect(canonical.split(separator: "\n", omittingEmptySubsequences: false)[2] == expected)
    }
}
