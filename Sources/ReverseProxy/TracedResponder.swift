import HTTPTypes
import Hummingbird
import Tracing

/// A server span around each request the full path serves, through swift-distributed-tracing
/// (a no-op until the process bootstraps a tracer: exporting is a deployment's choice). The
/// client's W3C `traceparent` is extracted as the parent; the span records the method and
/// the status, never the path's query (it may hold a presigned signature or a token).
package struct TracedResponder<Base: HTTPResponder>: HTTPResponder where Base.Context == ForwardingContext {
    package typealias Context = ForwardingContext
    let base: Base

    /// Traces `base`.
    package init(_ base: Base) { self.base = base }

    package func respond(to request: Request, context: ForwardingContext) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.head.headerFields, into: &parent, using: HTTPFieldsCarrier())
        return try await withSpan("HTTP \(request.method.rawValue)", context: parent, ofKind: .server) { span in
            span.attributes["http.request.method"] = request.method.rawValue
            let response = try await base.respond(to: request, context: context)
            span.attributes["http.response.status_code"] = Int(response.status.code)
            return response
        }
    }
}

/// Reads and writes trace context in HTTP fields: the upstream request carries the current
/// span's context (a field that is never signed, so it may change after signing).
struct HTTPFieldsCarrier: Extractor, Injector {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }

    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        if let name = HTTPField.Name(key) { carrier[name] = value }
    }
}

extension UpstreamForwarder {
    /// `request` with the current trace context in its fields (unchanged without a tracer).
    static func carryingTraceContext(_ request: HTTPRequest) -> HTTPRequest {
        guard let current = ServiceContext.current else { return request }
        var request = request
        InstrumentationSystem.instrument.inject(current, into: &request.headerFields, using: HTTPFieldsCarrier())
        return request
    }
}
