package import MultiAuthCore

/// A JSON-protocol service (KMS, Secrets Manager, SSM) as its callers see it: the one client,
/// the service's `X-Amz-Target` prefix, and where its calls' signing keys come from.
package struct AWSJSONService: Sendable {
    /// The client calls go through.
    package let client: AWSClient
    /// `TrentService`, `secretsmanager`, `AmazonSSM`.
    package let targetPrefix: String
    let keys: AWSClient.Credentials?

    /// Calls to `client`'s service under `targetPrefix`, signed with `keys` (unsigned when nil).
    package init(client: AWSClient, targetPrefix: String, keys: AWSClient.Credentials?) {
        self.client = client
        self.targetPrefix = targetPrefix
        self.keys = keys
    }

    /// The answer to `action` with `fields`, decoded as `Answer`. Failures are retried as
    /// ``RetryStrategy`` says, so callers make every action safe to repeat (an idempotency
    /// token, or a conditional write that reads back).
    package func send<Answer: Decodable>(_ action: String, _ fields: [String: JSONValue], as type: Answer.Type) async throws(AWSCallError) -> Answer {
        try await client.json(.json(action, targetPrefix: targetPrefix, fields: fields), as: type, signedWith: keys)
    }

    /// The answer of an action whose answer is not read.
    package struct Nothing: Decodable, Sendable {}
}
