package import HTTPTypes
package import NIOHTTP1

extension HTTPFields {
    /// SwiftNIO's HTTP/1 header fields, in order, as swift-http-types holds them; a name
    /// swift-http-types refuses is dropped. What both HTTP clients and the forwarding path
    /// read answers with.
    package init(http1 headers: HTTPHeaders) {
        self.init()
        reserveCapacity(headers.count)
        for (name, value) in headers {
            guard let name = HTTPField.Name.received(name) else { continue }
            append(HTTPField(name: name, value: value))
        }
    }
}
