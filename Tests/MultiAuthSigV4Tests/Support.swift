import MultiAuthSigV4

/// The example key pair of the AWS documentation, used only in tests.
let exampleCredentials = AWSCredentials(
    accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
let exampleDate = SigningDate(secondsSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z

/// Signs a request given by parts and returns the canonical request split into its lines:
/// [method, uri, query, header lines..., "", signed headers, payload hash].
func canonicalLines(
    method: String = "GET", path: String, query: String = "", headers: HTTPHeaderList = [("Host", "example.com")],
    service: String = "service", payload: Payload = .empty, options: SigningOptions? = nil
) throws -> [String] {
    let request = try SignableRequest(
        method: method, authority: "example.com", path: path, query: query, headers: headers, payload: payload)
    let signer = SigV4Signer(credentials: exampleCredentials, region: "us-east-1", service: service, options: options)
    return try signer.signHeaders(request, date: exampleDate).canonicalRequest
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

func canonicalURI(_ path: String, service: String = "service", options: SigningOptions? = nil) throws -> String {
    try canonicalLines(path: path, service: service, options: options)[1]
}

func canonicalQuery(_ query: String) throws -> String {
    try canonicalLines(path: "/", query: query)[2]
}

/// The canonical header block of a request with `headers` (host is always first given).
func canonicalHeaderLines(_ headers: HTTPHeaderList) throws -> [String] {
    let lines = try canonicalLines(path: "/", headers: headers)
    let end = lines[3...].firstIndex(of: "") ?? lines.count
    return Array(lines[3..<end])
}
