import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthCore

/// The event API Gateway sends a Lambda authorizer, and the answer it reads back, in payload
/// format 1.0 (`REQUEST` or `TOKEN`) and 2.0.
enum AuthorizerEvent {
    static func make(
        _ head: HTTPRequest, from client: ClientConnection, route: APIRoute, parameters: [String: String], identity: [String],
        settings: RequestAuthorizerSettings, deployment: APIDeployment
    ) -> [UInt8] {
        let target = head.path ?? "/"
        let path = String(target.prefix { $0 != "?" })
        let rawQuery = target.count > path.count ? String(target.dropFirst(path.count + 1)) : ""
        let arn = deployment.methodARN(head.method.rawValue, path[...])
        var headers: [String: JSONValue] = [:]
        for field in head.headerFields where headers[field.name.canonicalName] == nil { headers[field.name.canonicalName] = .string(field.value) }
        let query = IntegrationTarget.query(of: head).mapValues { JSONValue.string($0) }
        let pathParameters = JSONValue.object(parameters.mapValues { .string($0) })
        var context: [String: JSONValue] = [
            "accountId": .string(deployment.account), "apiId": .string(deployment.apiId), "stage": .string(deployment.stage),
            "httpMethod": .string(head.method.rawValue), "resourcePath": .string(route.template), "path": .string(path),
        ]
        let userAgent = JSONValue.string(head.headerFields[.userAgent] ?? "")
        let event: JSONValue
        if settings.payloadFormat == "2.0" {
            context["http"] = .object([
                "method": .string(head.method.rawValue), "path": .string(path), "protocol": .string("HTTP/1.1"),
                "sourceIp": .string(client.sourceIp), "userAgent": userAgent,
            ])
            context["authentication"] = client.certificate == nil ? .null : .object(["clientCert": client.certificateJSON])
            event = .object([
                "version": .string("2.0"), "type": .string("REQUEST"), "routeArn": .string(arn), "identitySource": .array(identity.map { .string($0) }),
                "routeKey": .string(route.name), "rawPath": .string(path), "rawQueryString": .string(rawQuery), "headers": .object(headers),
                "queryStringParameters": .object(query), "pathParameters": pathParameters, "requestContext": .object(context),
            ])
        } else if settings.type == "token" {
            event = .object(["type": .string("TOKEN"), "authorizationToken": .string(identity.first ?? ""), "methodArn": .string(arn)])
        } else {
            context["identity"] = .object(["sourceIp": .string(client.sourceIp), "userAgent": userAgent, "clientCert": client.certificateJSON])
            event = .object([
                "type": .string("REQUEST"), "methodArn": .string(arn), "resource": .string(route.template), "path": .string(path),
                "httpMethod": .string(head.method.rawValue), "headers": .object(headers), "queryStringParameters": .object(query),
                "pathParameters": pathParameters, "stageVariables": .object([:]), "requestContext": .object(context),
            ])
        }
        return Array(event.description.utf8)
    }

    /// The answer in `body`: a simple response (`isAuthorized`) or a policy document with its
    /// principal; nil for anything else.
    static func answer(_ body: [UInt8], simple: Bool) -> RequestAuthorizerCall.Answer? {
        guard let object = (try? JSONValue.decode(String(decoding: body, as: UTF8.self)))?.objectValue else { return nil }
        var context: [String: String] = [:]
        for (key, value) in object["context"]?.objectValue ?? [:] {
            switch value {
            case .string(let text): context[key] = text
            case .number, .bool: context[key] = value.description
            default: break
            }
        }
        if simple {
            guard case .bool(let authorized) = object["isAuthorized"] else { return nil }
            return .init(principalId: "", context: context, policy: nil, authorized: authorized, usageIdentifierKey: nil)
        }
        guard let principal = object["principalId"]?.stringValue, let document = object["policyDocument"]?.objectValue,
            let policy = AuthorizerPolicy(document)
        else { return nil }
        return .init(principalId: principal, context: context, policy: policy, authorized: false, usageIdentifierKey: object["usageIdentifierKey"]?.stringValue)
    }
}

/// An authorizer's IAM policy for `execute-api:Invoke`: Allow and Deny statements whose
/// resources may hold `*` and `?` wildcards; an explicit Deny wins over any Allow.
struct AuthorizerPolicy: Sendable {
    enum Outcome { case allow, deny, noMatch }

    private let allows: [String]
    private let denies: [String]

    init?(_ document: [String: JSONValue]) {
        guard case .array(let statements)? = document["Statement"] ?? document["statement"] else { return nil }
        var allows: [String] = [], denies: [String] = []
        for statement in statements {
            guard let fields = statement.objectValue, let effect = fields["Effect"]?.stringValue else { return nil }
            let actions = Self.strings(fields["Action"])
            guard actions.contains(where: { ["execute-api:invoke", "execute-api:*", "*"].contains($0.lowercased()) }) else { continue }
            let resources = Self.strings(fields["Resource"])
            switch effect {
            case "Allow": allows += resources
            case "Deny": denies += resources
            default: return nil
            }
        }
        self.allows = allows
        self.denies = denies
    }

    func evaluate(_ arn: String) -> Outcome {
        if denies.contains(where: { Self.matches($0, arn) }) { return .deny }
        return allows.contains(where: { Self.matches($0, arn) }) ? .allow : .noMatch
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
    }

    /// IAM's wildcard match: `*` any run of characters, `?` one character.
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern.utf8), t = Array(text.utf8)
        var (i, j, star, mark) = (0, 0, -1, 0)
        while j < t.count {
            if i < p.count, p[i] == UInt8(ascii: "?") || p[i] == t[j] {
                i += 1; j += 1
            } else if i < p.count, p[i] == UInt8(ascii: "*") {
                star = i; mark = j; i += 1
            } else if star >= 0 {
                i = star + 1; mark += 1; j = mark
            } else {
                return false
            }
        }
        while i < p.count, p[i] == UInt8(ascii: "*") { i += 1 }
        return i == p.count
    }
}
