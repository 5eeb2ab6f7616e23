import MultiAuthCore
import Testing

/// The one trimmer of token-command and credential_process output: a CRLF is one Swift
/// `Character`, so a Character-based trim left it in place (and it ended headers early).
@Suite(.timeLimit(.minutes(5))) struct TrimmingTests {
    @Test func lineEndingsOfEveryKindAreTrimmed() {
        #expect("token\r\n".trimmedWhitespace == "token")
        #expect(" \t\r\nAKID\r\n\r\n".trimmedWhitespace == "AKID")
        #expect("a b\r\nc".trimmedWhitespace == "a b\r\nc")
        #expect("\r\n \t".trimmedWhitespace == "")
    }
}
