import GRPCCore
import GRPCInProcessTransport
import GRPCProtobuf
import HTTPTypes
import Logging
import MultiAuthExtAuthzGRPC
import MultiAuthInboundAuthorization
import MultiAuthReverseProxy
import SwiftProtobuf
import Testing

/// `multiauth authz --grpc-listen`: Envoy's `Check` decided by the auth service. The wire
/// format is checked against bytes written from the protobuf encoding rules and Envoy's field
/// numbers; the decisions are the HTTP auth service's (API keys: a known key's name, API
/// Gateway's refusals).
struct AuthorizationServiceTests {
    static let service: AuthorizationService = {
        let gateway = VerifyingGateway(
            authorizers: CurrentAuthorizer(InboundAuthorizer(apiKeys: ["key-one": "alpha"])),
            forwarder: try! UpstreamForwarder(upstream: "http://127.0.0.1:9/"), authz: AuthzContract(proxy: .envoy))
        return AuthorizationService(gateway: gateway, logger: Logger(label: "authz-grpc", factory: { _ in SwiftLogNoOpLogHandler() }))
    }()

    /// A check of `GET /pets?x=1` on api.example with `headers` (`headers` map, or `header_map` when `raw`).
    static func check(_ headers: [(String, String)], raw: Bool = false, method: String = "GET") -> ExtAuthzCheckRequest {
        var check = ExtAuthzCheckRequest()
        check.attributes.request.http.method = method
        check.attributes.request.http.path = "/pets?x=1"
        check.attributes.request.http.host = "api.example"
        for (name, value) in headers {
            if raw {
                var header = ExtAuthzHeaderValue()
                header.key = name
                header.rawValue = .init(value.utf8)
                check.attributes.request.http.headerMap.headers.append(header)
            } else {
                check.attributes.request.http.headers[name] = value
            }
        }
        return check
    }

    @Test func aKnownKeyIsAllowedWithItsNameAndForgedIdentityFieldsAreRemoved() async throws {
        let answer = await Self.service.answer(Self.check([("x-api-key", "key-one"), ("x-multiauth-claim-email", "forged@example.com"), (":authority", "api.example")]))
        #expect(answer.status.code == 0)
        let headers = answer.okResponse.headers.map { ($0.header.key, $0.header.value, $0.appendAction) }
        #expect(headers.map(\.0) == ["x-multiauth-principal", "x-multiauth-mode"])
        #expect(headers.map(\.1) == ["alpha", "API_KEY"])
        #expect(headers.allSatisfy { $0.2 == .overwriteIfExistsOrAdd })
        #expect(answer.okResponse.headersToRemove == ["x-multiauth-claim-email"])
    }

    @Test func rawHeaderValuesAreRead() async throws {
        let answer = await Self.service.answer(Self.check([("x-api-key", "key-one")], raw: true))
        #expect(answer.status.code == 0)
        #expect(answer.okResponse.headers.first?.header.value == "alpha")
    }

    @Test func aWrongKeyIsDeniedAsAPIGatewayDeniesIt() async throws {
        let answer = await Self.service.answer(Self.check([("x-api-key", "key-two")]))
        #expect(answer.status.code == 7)  // PERMISSION_DENIED
        #expect(answer.deniedResponse.status.code == 403)
        let headers = Dictionary(uniqueKeysWithValues: answer.deniedResponse.headers.map { ($0.header.key, $0.header.value) })
        #expect(headers == ["content-type": "application/json", "x-amzn-errortype": "ForbiddenException"])
        #expect(answer.deniedResponse.body == #"{"message":"Forbidden"}"#)
        let missing = await Self.service.answer(Self.check([]))
        #expect(missing.deniedResponse.status.code == 403)
        #expect(missing.deniedResponse.headers.contains { $0.header.value == "MissingAuthenticationTokenException" })
    }

    @Test func aSignedBodyCutShortIsRefused() async throws {
        let signed = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261129/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature=" + String(repeating: "0", count: 64)
        var check = Self.check([("authorization", signed), ("x-envoy-auth-partial-body", "true")], method: "POST")
        check.attributes.request.http.rawBody = .init("half a bo".utf8)
        let answer = await Self.service.answer(check)
        #expect(answer.deniedResponse.status.code == 403)
        #expect(answer.deniedResponse.body == #"{"message":"The request body could not be checked."}"#)
    }

    @Test(arguments: [("", "/pets"), ("GET", "pets"), ("G T", "/pets")])
    func aCheckThatDoesNotNameARequestIsAnswered400(method: String, path: String) async throws {
        var check = Self.check([("x-api-key", "key-one")], method: method)
        check.attributes.request.http.path = path
        let answer = await Self.service.answer(check)
        #expect(answer.status.code == 3)  // INVALID_ARGUMENT
        #expect(answer.deniedResponse.status.code == 400)
    }

    @Test func statusesMapToTheirGRPCCodes() {
        // google.rpc.Code: OK 0, INVALID_ARGUMENT 3, PERMISSION_DENIED 7, RESOURCE_EXHAUSTED 8,
        // UNAVAILABLE 14, UNAUTHENTICATED 16.
        let codes = [200, 400, 401, 403, 429, 500, 502].map { ExtAuthzCheckResponse(answer: HTTPResponse(status: .init(code: $0)), body: [], clientFields: [:]).status.code }
        #expect(codes == [0, 3, 16, 7, 8, 14, 14])
    }

    /// A CheckRequest as Envoy writes it: the fields this service reads among others it does
    /// not declare (destination, context_extensions, route_metadata_context), encoded by hand
    /// from the protobuf rules (tag = field << 3 | wire type; 2 = length-delimited, 0 = varint).
    @Test func envoysWireFormatIsRead() throws {
        func varint(_ value: Int) -> [UInt8] { value < 0x80 ? [UInt8(value)] : [UInt8(value & 0x7F | 0x80)] + varint(value >> 7) }
        func field(_ number: Int, _ bytes: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(bytes.count) + bytes }
        func text(_ number: Int, _ value: String) -> [UInt8] { field(number, Array(value.utf8)) }
        let entry = { (name: String, value: String) in field(3, text(1, name) + text(2, value)) }
        let http = text(1, "id-1") + text(2, "PUT") + entry(":authority", "api.example") + entry("x-api-key", "key-one")
            + text(4, "/pets/7?a=b") + text(5, "api.example") + text(6, "https") + [9 << 3, 42] + text(10, "HTTP/1.1")
        let socket = text(2, "10.1.2.3") + [3 << 3, 0xB9, 0x60]  // port_value 12345
        let attributes = field(1, field(1, field(1, socket))) + field(2, text(2, "destination"))
            + field(4, field(2, http)) + field(10, text(1, "k") + text(2, "v")) + field(13, [])
        let check = try ExtAuthzCheckRequest(serializedBytes: field(1, attributes))
        let asked = try check.asked().get()
        #expect(asked.request.method == .put)
        #expect(asked.request.path == "/pets/7?a=b")
        #expect(asked.request.authority == "api.example")
        #expect(asked.request.scheme == "https")
        #expect(asked.request.headerFields.map(\.name.canonicalName) == ["x-api-key"])
        #expect(asked.body == nil)
        #expect(asked.sourceIp == "10.1.2.3")
        #expect(check.attributes.source.address.socketAddress.portValue == 12345)
    }

    /// The service registered under Envoy's method name, over gRPC's in-process transport.
    @Test func checkIsServedUnderEnvoysMethodName() async throws {
        #expect(AuthorizationService.check.fullyQualifiedMethod == "envoy.service.auth.v3.Authorization/Check")
        let transport = InProcessTransport()
        let answer = try await withGRPCServer(transport: transport.server, services: [Self.service]) { _ in
            try await withGRPCClient(transport: transport.client) { client in
                try await client.unary(
                    request: ClientRequest(message: Self.check([("x-api-key", "key-one")])), descriptor: AuthorizationService.check,
                    serializer: ProtobufSerializer<ExtAuthzCheckRequest>(), deserializer: ProtobufDeserializer<ExtAuthzCheckResponse>(),
                    options: .defaults
                ) { try $0.message }
            }
        }
        #expect(answer.status.code == 0)
        #expect(answer.okResponse.headers.first?.header.value == "alpha")
    }
}
