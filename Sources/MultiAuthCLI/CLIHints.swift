import MultiAuthCore
import MultiAuthStore
import MultiAuthTokens

// Library errors say what went wrong and where; what to type next is the CLI's to say. Each
// message below is the library's, with the command that helps appended.

extension StoreError {
    /// The message with the `multiauth` command that helps, where one does.
    var messageWithHint: String {
        switch self.kind {
        case .storeMissing: "\(description): create one with 'multiauth store init'"
        case .environmentMismatch: "\(description); 'multiauth store purge --other-environments' removes stale items"
        case .keyUnavailable(let message) where message.hasPrefix("no key file at "):
            "\(description): create it with 'multiauth store init --key-file \(message.dropFirst("no key file at ".count))'"
        default: description
        }
    }
}

extension TokenError {
    /// The message with the `multiauth` command that helps, where one does.
    var messageWithHint: String {
        switch self.kind {
        case .loginRequired: return "\(description): log in again with 'multiauth login'"
        // The store's own error, kept whole by the login layer.
        case .storage(let underlying): return (underlying.error as? StoreError)?.messageWithHint ?? description
        default: return description
        }
    }
}
