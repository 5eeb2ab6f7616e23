import MultiAuthCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct RedactionTests {
    /// A helper's standard error as a message quotes it: the first three lines, with a
    /// 40-character secret key, a token and `password=` values taken out, words kept.
    @Test func whatAHelperSaidIsQuotedWithoutItsSecrets() {
        let said = Array("""

            Error when retrieving token from sso: Token has expired and refresh failed
            key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY was rejected
            password=hunter2 token:eyJhbGciOiJIUzI1NiJ9.e30.abc
            fourth line is left out
            """.utf8)
        let quoted = Redaction.said(said)
        #expect(quoted.hasPrefix("Error when retrieving token from sso: Token has expired and refresh failed / key <redacted> was rejected / "), "\(quoted)")
        #expect(!quoted.contains("wJalrXUtnFEMI") && !quoted.contains("hunter2") && !quoted.contains("eyJhbGci") && !quoted.contains("fourth"), "\(quoted)")
        #expect(Redaction.said(Array("profile 'a' is its own source_profile: recursion\n".utf8)) == "profile 'a' is its own source_profile: recursion")
    }

    @Test func aMalformedPartIsNamedByNameOrPosition() {
        #expect(Redaction.part(named: "pin-value", position: 2, of: "URI query", known: ["pin-value"]) == "the URI query's attribute 'pin-value'")
        #expect(Redaction.part(named: "pin-value:S3cret", position: 2, of: "URI query", known: ["pin-value"]) == "the URI query's attribute 2")
        #expect(Redaction.part(named: nil, position: 2, of: "URI query") == "the URI query's attribute 2")
    }

    @Test func secretQueryValuesAreReplaced() {
        let target = Redaction.target("/p?a=1&X-Amz-Security-Token=SECRET-TOKEN&X-Amz-Signature=abc")
        #expect(!target.contains("SECRET-TOKEN"))
        #expect(target.hasPrefix("/p?a=1&X-Amz-Security-Token="))
    }

    /// U+1034 is a combining mark: after `?` it forms one Character with it, which hid the
    /// query from a Character search (found by fuzzing the request parser).
    @Test func aCombiningMarkAfterTheQuestionMarkHidesNothing() {
        let target = Redaction.target("/p?\u{1034}=x&X-Amz-Security-Token=SECRET-TOKEN")
        #expect(!target.contains("SECRET-TOKEN"))
        #expect(target.hasPrefix("/p?\u{1034}=x&"))
    }

    @Test func canonicalLinesWithSecretNamesAreReplaced() {
        #expect(!Redaction.canonicalLine("x-amz-security-token:SECRET-TOKEN").contains("SECRET-TOKEN"))
        #expect(Redaction.canonicalLine("host:example.com") == "host:example.com")
    }

    /// Issue 45, item 8: a password holding `/`, `?`, `#` or `@` unencoded ended the
    /// authority early, and the redaction stopped there, printing the rest of the password.
    @Test(arguments: ["pa/ss-SECRET", "pa?ss-SECRET", "pa#ss-SECRET", "pa@ss-SECRET", "p/a?s#s@-SECRET", "plain-SECRET"])
    func aPasswordWithAnyDelimiterIsRemoved(password: String) {
        let shown = Redaction.url("postgres://multiauth:\(password)@db.example:5432/store?sslmode=require")
        #expect(!shown.contains("SECRET") && !shown.contains("pa") && shown.hasPrefix("postgres://db.example:5432/"), "\(shown)")
    }

    @Test func aURLWithoutUserInformationIsKept() {
        #expect(Redaction.url("https://api.example.com/a/b@c") == "https://api.example.com/a/b@c")
        #expect(Redaction.url("https://user@api.example.com/x") == "https://api.example.com/x")
    }
}
