import MultiAuthSigV4
import Testing

/// Canonical URI rules; every expected value is derived by hand from the SigV4 rules
/// (RFC 3986 unreserved set, uppercase hex, double encoding, dot-segment removal).
@Suite(.timeLimit(.minutes(5))) struct CanonicalURITests {
    @Test func unreservedCharactersStayAndReservedOnesAreEncoded() throws {
        #expect(try canonicalURI("/AZaz09-_.~") == "/AZaz09-_.~")
        #expect(try canonicalURI("/a:b@c!$'()*+,;=") == "/a%3Ab%40c%21%24%27%28%29%2A%2B%2C%3B%3D")
    }

    @Test func rawUTF8IsEncodedOnceAndEscapesAreEncodedAgain() throws {
        #expect(try canonicalURI("/ሴ") == "/%E1%88%B4")
        #expect(try canonicalURI("/%E1%88%B4") == "/%25E1%2588%25B4")
    }

    @Test func percentInTheWirePathBecomesPercent25() throws {
        #expect(try canonicalURI("/100%25/x") == "/100%2525/x")
    }

    @Test(arguments: [
        ("/a/./b/../c//d/", "/a/c/d/"),
        ("/a/b/..", "/a"),
        ("/a/b/../", "/a/"),
        ("//", "/"),
        ("/..", "/"),
        ("/../../x", "/x"),
        ("/.hidden/..x/...", "/.hidden/..x/..."),
        ("", "/"),
        ("/", "/"),
        ("/example/..", "/"),
    ])
    func dotSegmentsAndRepeatedSlashes(path: String, expected: String) throws {
        #expect(try canonicalURI(path) == expected)
    }

    @Test func withoutNormalizationSlashesAndDotsStayButBytesAreEncoded() throws {
        var options = SigningOptions.defaults(forService: "service")
        options.normalizesPath = false
        #expect(try canonicalURI("//a/./b/../ c", options: options) == "//a/./b/../%20c")
    }

    @Test func s3UsesTheWirePathExactly() throws {
        #expect(try canonicalURI("/photos/a%2Bb/../x//y", service: "s3") == "/photos/a%2Bb/../x//y")
        #expect(try canonicalURI("/test%24file.text", service: "s3") == "/test%24file.text")
        #expect(try canonicalURI("", service: "s3") == "/")
    }
}
