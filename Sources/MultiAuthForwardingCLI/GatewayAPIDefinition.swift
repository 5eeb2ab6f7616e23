import MultiAuthAPIDefinition
import MultiAuthCLI
import MultiAuthCore
import MultiAuthInboundAuthorization
import MultiAuthJSONWebTokens
import MultiAuthReverseProxy
import MultiAuthSigV4
import MultiAuthTokens

/// `gateway --api FILE`: the definition read and made into the policy the gateway serves,
/// with the gateway's key pairs and API keys, and a key set for each JWT issuer it names
/// (found through the issuer's discovery document, fetched again as the issuer rotates keys).
enum GatewayAPIDefinition {
    /// The policy for the definition at `path`.
    static func policy(
        _ path: String, authorizer: InboundAuthorizerParts, tls: UpstreamTLS, deployment: APIDeployment, usage: UsageLimits?, metrics: ServerMetrics?
    ) async throws -> APIGatewayPolicy {
        let additions = try GatewayAdditions.required(by: "--api")
        let bytes: [UInt8]
        switch BoundedFileRead.contents(atPath: path, limit: APIDefinition.maxBytes) {
        case .success(let read): bytes = read
        case .failure(let failure): throw CLIError("--api", "'\(path)' \(failure)")
        }
        do {
            let definition = try additions.readDefinition(bytes, path)
            var checks: [String: APIGatewayPolicy.TokenCheck] = [:]
            for (name, scheme) in definition.schemes {
                guard case .jwt(let issuer, let audiences) = scheme else { continue }
                checks[name] = try await tokenCheck(issuer: issuer, audiences: audiences, scheme: name)
            }
            return try APIGatewayPolicy(
                definition, verifier: authorizer.verifier, apiKeys: authorizer.apiKeys, tokenChecks: checks, tls: tls, deployment: deployment,
                http: ServerSenders.authorizers, usage: usage, metrics: metrics)
        } catch let error as APIDefinitionError {
            throw CLIError("--api", error)
        }
    }

    /// The usage plans at `path`, their keys checked against the gateway's (`apiKeys`: key → name).
    static func usagePlans(_ path: String, apiKeys: [String: String]) throws -> UsagePlans {
        let additions = try GatewayAdditions.required(by: "--usage-plans")
        switch BoundedFileRead.contents(atPath: path, limit: UsagePlans.maxBytes) {
        case .success(let bytes):
            do throws(APIDefinitionError) { return try additions.readUsagePlans(bytes, path, Set(apiKeys.values)) } catch { throw CLIError("--usage-plans", error) }
        case .failure(let failure): throw CLIError("--usage-plans", "'\(path)' \(failure)")
        }
    }

    /// Tokens of `issuer` for one of `audiences` (any, when there are none), checked against its key set.
    private static func tokenCheck(issuer: String, audiences: [String], scheme: String) async throws -> APIGatewayPolicy.TokenCheck {
        let http = ServerSenders.keySets
        do {
            let provider = try await OpenIDConnectClient.discover(OIDCConfiguration(issuer: issuer, clientId: audiences.first ?? ""), http: http)
            guard let jwks = provider.metadata.jwksURI else { throw CLIError("--api", "securitySchemes.\(scheme): \(issuer) publishes no jwks_uri") }
            let keySet = try await JSONWebKeySetCache(url: jwks, sender: http)
            return APIGatewayPolicy.TokenCheck(
                validator: IDTokenValidator(issuer: provider.metadata.issuer, audiences: audiences, keys: await keySet.keys(for: nil)), keySet: keySet)
        } catch let error as TokenError {
            throw CLIError("--api", "securitySchemes.\(scheme): \(error)")
        }
    }
}

/// The gateway's own keys, which an API definition's schemes use.
struct InboundAuthorizerParts {
    let verifier: SigV4Verifier?
    let apiKeys: [String: String]
}
