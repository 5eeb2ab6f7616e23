import Testing

@testable import MultiAuthCore

/// The one JSON decoding helper: its errors name what was read and where decoding stopped,
/// and never carry a value from the text.
struct JSONDecodingTests {
    struct Credentials: Decodable {
        struct Item: Decodable { let expires: Int }
        let key: String
        let items: [Item]
    }

    func problem(_ text: String) -> JSONDecodingError? {
        do {
            _ = try JSONDecoding.decode(Credentials.self, from: text, what: "the answer")
            return nil
        } catch { return error }
    }

    @Test func aMissingMemberIsNamed() {
        let error = problem(#"{"items": []}"#)
        #expect(error?.description == #"the answer is not the JSON expected: no "key""#)
    }

    @Test func aNestedWrongTypeIsNamedWithItsPlace() {
        let error = problem(#"{"key": "s3cr3t-value", "items": [{"expires": 1}, {"expires": "soon-s3cr3t"}]}"#)
        #expect(error?.problem == #""items[1].expires" is not a number"#)
        #expect(error.map { !$0.description.contains("s3cr3t") } == true)
    }

    @Test func textThatIsNotJSONSaysSo() {
        #expect(problem("key=s3cr3t")?.problem == "not valid JSON")
        #expect(problem(#"{"key": null, "items": []}"#)?.problem == #""key" is null"#)
    }

    @Test func snakeCaseMembersFillCamelCaseProperties() throws {
        struct Context: Decodable { let credentialScope: String }
        let decoded = try JSONDecoding.decode(Context.self, from: Array(#"{"credential_scope": "s"}"#.utf8), what: "x", snakeCaseKeys: true)
        #expect(decoded.credentialScope == "s")
    }
}
