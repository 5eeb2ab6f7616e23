package import HTTPTypes
package import MultiAuthCore
import MultiAuthHTTP

/// One AWS API operation as it goes on the wire, in one of the protocols MultiAuth calls:
/// query (STS), JSON 1.0/1.1 (KMS, SSM, Secrets Manager, Cognito), and REST-JSON (IAM
/// Identity Center's portal and OIDC services).
package struct AWSOperation: Sendable {
    /// The operation's name (`AssumeRole`, `GetSecretValue`), for errors and logs.
    package let name: String
    /// The HTTP method.
    package let method: HTTPRequest.Method
    /// Path and query after the endpoint URL (empty: the endpoint URL itself).
    package let path: String
    /// Header fields the protocol needs (content type, target).
    package let headers: [(String, String)]
    /// The request body.
    package let body: [UInt8]

    /// An operation sent as given.
    package init(name: String, method: HTTPRequest.Method, path: String = "", headers: [(String, String)] = [], body: [UInt8] = []) {
        self.name = name
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// A query-protocol operation: `Action`, `Version` and `parameters`, form-encoded in a POST.
    package static func query(_ action: String, version: String, _ parameters: [(String, String)]) -> AWSOperation {
        AWSOperation(
            name: action, method: .post, headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")],
            body: FormURLEncoding.encode([("Action", action), ("Version", version)] + parameters))
    }

    /// A JSON-protocol operation: `X-Amz-Target: targetPrefix.name`, `body` a JSON object.
    package static func json(_ name: String, targetPrefix: String, version: String = "1.1", body: [UInt8]) -> AWSOperation {
        AWSOperation(
            name: name, method: .post,
            headers: [("Content-Type", "application/x-amz-json-\(version)"), ("X-Amz-Target", "\(targetPrefix).\(name)")], body: body)
    }

    /// A JSON-protocol operation whose body is `fields`.
    package static func json(_ name: String, targetPrefix: String, version: String = "1.1", fields: [String: JSONValue]) -> AWSOperation {
        json(name, targetPrefix: targetPrefix, version: version, body: Array(JSONValue.object(fields).description.utf8))
    }

    /// A REST-JSON operation: `method` on `path` (with its query), a JSON body when given.
    package static func restJSON(
        _ name: String, method: HTTPRequest.Method, path: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) -> AWSOperation {
        AWSOperation(
            name: name, method: method, path: path, headers: (body == nil ? [] : [("Content-Type", "application/json")]) + headers,
            body: body ?? [])
    }
}
