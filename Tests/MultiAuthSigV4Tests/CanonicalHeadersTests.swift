import HTTPTypes
import MultiAuthSigV4
import Testing

/// Canonical header rules: lowercase names, sorted; values trimmed with inner whitespace
/// runs collapsed; repeated names joined with "," in the order received.
@Suite(.timeLimit(.minutes(5))) struct CanonicalHeadersTests {
    @Test func whitespaceIncludingTabsAndFoldedLinesCollapses() throws {
        let lines = try canonicalHeaderLines([("Host", "example.com"), ("My-Header", " \t a  \t b\n   c  ")])
        #expect(lines.contains("my-header:a b c"))
    }

    @Test func repeatedNamesJoinInOrderWithoutSortingValues() throws {
        let lines = try canonicalHeaderLines([("Host", "example.com"), ("X-A", "z"), ("x-a", "y"), ("X-B", "1"), ("X-a", "x")])
        #expect(lines.contains("x-a:z,y,x"))
    }

    @Test func namesAreLowercasedAndSorted() throws {
        let lines = try canonicalHeaderLines([("Host", "example.com"), ("ZZ", "1"), ("Content-Type", "t")])
        #expect(lines == ["content-type:t", "host:example.com", "x-amz-date:20150830T123600Z", "zz:1"])
    }

    @Test func emptyValuesAreSigned() throws {
        let lines = try canonicalHeaderLines([("Host", "example.com"), ("X-Empty", "")])
        #expect(lines.contains("x-empty:"))
    }

    @Test func headersThatAreNeverSigned() throws {
        let headers: HTTPHeaderList = [
            ("Host", "example.com"), ("User-Agent", "curl"), ("X-Amzn-Trace-Id", "t"), ("Expect", "100-continue"),
            ("Connection", "keep-alive"), ("Authorization", "old"), ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            ("tracestate", "congo=t61rcWkgMzE"),
        ]
        let lines = try canonicalLines(path: "/", headers: headers)
        #expect(lines[lines.count - 2] == "host;x-amz-date")
    }

    @Test func hostComesFromTheURLWithANonDefaultPortOnly() throws {
        let signer = SigV4Signer(credentials: exampleCredentials, region: "us-east-1", service: "service")
        for (url, host) in [
            ("https://Example.COM:443/", "example.com"), ("https://example.com:8443/", "example.com:8443"),
            ("http://example.com:80/", "example.com"), ("http://example.com:443/", "example.com:443"),
            ("https://[::1]:9000/", "[::1]:9000"),
        ] {
            let result = try signer.signHeaders(try SignableRequest(method: "GET", url: url), date: exampleDate)
            #expect(result.canonicalRequest.contains("\nhost:\(host)\n"), "\(url)")
            #expect(result.signable.headers.first(named: "host") == host)
        }
    }

    /// Fields too long for the signer's first, small buffer are all still signed: the stages
    /// run again with room for every byte (hand-derived lines: lowercased names, one space
    /// for each inner run, values in full).
    @Test func fieldsLongerThanTheFirstBufferAreSignedInFull() throws {
        let long = String(repeating: "v", count: 3000)
        let lines = try canonicalHeaderLines([("Host", "example.com"), ("X-Long", " \(long)  \(long) "), ("X-Short", "s")])
        #expect(lines == ["host:example.com", "x-amz-date:20150830T123600Z", "x-long:\(long) \(long)", "x-short:s"])

        var fields = HTTPFields()
        fields[HTTPField.Name("X-Long")!] = long
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: fields)
        let signer = SigV4Signer(credentials: exampleCredentials, region: "us-east-1", service: "service")
        let result = try signer.signHeaders(request, payload: .empty, date: exampleDate)
        #expect(result.canonicalRequest.contains("\nx-long:\(long)\n"))
    }
}
