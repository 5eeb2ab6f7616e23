package import HTTPTypes
import MultiAuthReverseProxy

/// The auth service's answer as Envoy reads it from a `CheckResponse`.
extension ExtAuthzCheckResponse {
    /// `answer` (the HTTP auth service's response to the same question) for Envoy: a 200 is
    /// `OK` with an `ok_response` whose headers (the principal, mode and claims) overwrite the
    /// client's, and which removes every other `x-multiauth-` header the client sent
    /// (`clientFields`), so the upstream sees only what was verified; anything else is denied
    /// with a `denied_response` carrying API Gateway's status, headers and body.
    package init(answer head: HTTPResponse, body: [UInt8], clientFields: HTTPFields) {
        self.init()
        status.code = Self.rpcCode(for: head.status)
        guard head.status == .ok else {
            var denied = ExtAuthzDeniedHttpResponse()
            denied.status.code = Int32(head.status.code)
            denied.headers = head.headerFields
                .filter { $0.name != VerifyingGateway.errorBodyField && $0.name != VerifyingGateway.statusField }
                .map(Self.overwriting)
            denied.body = String(decoding: body, as: UTF8.self)
            status.message = head.status.reasonPhrase
            deniedResponse = denied
            return
        }
        var allowed = ExtAuthzOkHttpResponse()
        allowed.headers = head.headerFields.map(Self.overwriting)
        let set = Set(head.headerFields.map(\.name.canonicalName))
        let forged = clientFields.map(\.name.canonicalName).filter { $0.hasPrefix("x-multiauth-") && !set.contains($0) }
        allowed.headersToRemove = Array(Set(forged)).sorted()
        okResponse = allowed
    }

    /// The `google.rpc.Code` Envoy logs for a status: `OK` (0) allows, any other denies.
    static func rpcCode(for status: HTTPResponse.Status) -> Int32 {
        switch status.code {
        case 200: 0
        case 400: 3  // INVALID_ARGUMENT
        case 401: 16  // UNAUTHENTICATED
        case 429: 8  // RESOURCE_EXHAUSTED
        case 500...: 14  // UNAVAILABLE
        default: 7  // PERMISSION_DENIED
        }
    }

    private static func overwriting(_ field: HTTPField) -> ExtAuthzHeaderValueOption {
        var option = ExtAuthzHeaderValueOption()
        option.header.key = field.name.canonicalName
        option.header.value = field.value
        option.appendAction = .overwriteIfExistsOrAdd
        return option
    }
}
