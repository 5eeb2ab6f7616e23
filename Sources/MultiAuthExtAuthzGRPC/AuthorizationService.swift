package import GRPCCore
import GRPCProtobuf
import HTTPTypes
package import Logging
package import MultiAuthReverseProxy
import MultiAuthInboundAuthorization

/// Envoy's `envoy.service.auth.v3.Authorization` service (the gRPC `ext_authz` contract, and
/// Istio's `CUSTOM` authorization provider over gRPC): each `Check` is decided by the same
/// ``MultiAuthReverseProxy/VerifyingGateway`` that answers the HTTP contract.
package struct AuthorizationService: RegistrableRPCService {
    let gateway: VerifyingGateway
    let logger: Logger

    /// The service deciding with `gateway` (an auth service: one made with an
    /// ``MultiAuthReverseProxy/AuthzContract`` for Envoy).
    package init(gateway: VerifyingGateway, logger: Logger) {
        self.gateway = gateway
        self.logger = logger
    }

    /// `envoy.service.auth.v3.Authorization/Check`.
    package static let check = MethodDescriptor(fullyQualifiedService: "envoy.service.auth.v3.Authorization", method: "Check")

    package func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(
            forMethod: Self.check, deserializer: ProtobufDeserializer<ExtAuthzCheckRequest>(), serializer: ProtobufSerializer<ExtAuthzCheckResponse>()
        ) { request, _ in
            let single = try await ServerRequest(stream: request)
            return StreamingServerResponse(single: ServerResponse(message: await answer(single.message)))
        }
    }

    /// The answer to one check.
    package func answer(_ check: ExtAuthzCheckRequest) async -> ExtAuthzCheckResponse {
        switch check.asked() {
        case .failure(let rejection):
            logger.info("request rejected", metadata: ["status": "\(rejection.status.code)", "reason": "\(rejection.reason)"])
            return ExtAuthzCheckResponse(answer: rejection.responseHead, body: rejection.body, clientFields: HTTPFields())
        case .success(let asked):
            let (head, body) = await gateway.check(asked.request, body: asked.body, from: ClientConnection(sourceIp: asked.sourceIp), logger: logger)
            return ExtAuthzCheckResponse(answer: head, body: body, clientFields: asked.request.headerFields)
        }
    }
}
