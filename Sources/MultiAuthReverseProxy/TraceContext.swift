import HTTPTypes
import Tracing

/// Reads and writes W3C trace context in HTTP fields: each exchange's server span takes the
/// client's `traceparent` as its parent, and the upstream request carries the span's context
/// (a field that is never signed, so it may change after signing).
struct HTTPFieldsCarrier: Extractor, Injector {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }

    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        if let name = HTTPField.Name(key) { carrier[name] = value }
    }
}
