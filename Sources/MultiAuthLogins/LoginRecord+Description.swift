public import MultiAuthCore
import MultiAuthTokens

// A login prints its provider's configuration (secrets redacted) and its tokens' redacted form.

extension LoginRecord: RedactedDescribing {
    public var description: String { "LoginRecord(flow: \(flow), provider: \(provider), tokens: \(tokens))" }
}

extension LoginRecord.Provider: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cognito(let configuration): configuration.description
        case .oidc(let configuration): configuration.description
        }
    }
}
