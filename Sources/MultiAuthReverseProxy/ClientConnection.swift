import MultiAuthCore
import MultiAuthCrypto
import NIOCore
import NIOSSL

/// Who is at the other end of a client's connection, as API Gateway tells authorizers and
/// integrations (`context.identity.sourceIp`, `context.identity.clientCert.*`). Read once per
/// connection, when its first request arrives.
package struct ClientConnection: Sendable {
    /// The client's IP address.
    let sourceIp: String
    /// The certificate the client presented under mutual TLS, described as API Gateway does.
    let certificate: ClientCertificate?

    /// The client of `channel`: its address, and its certificate when TLS verified one.
    init(_ channel: any Channel) {
        sourceIp = channel.remoteAddress?.ipAddress ?? ""
        certificate = (try? channel.pipeline.syncOperations.nioSSL_peerCertificate()).flatMap { $0 }.flatMap(ClientCertificate.init)
    }

    /// A client known by its address only: one an auth service is told of (Envoy's
    /// `source.address`), with no certificate.
    package init(sourceIp: String) {
        self.sourceIp = sourceIp
        certificate = nil
    }

    /// The value of `context.identity.NAME` (`sourceIp`, `clientCert.subjectDN`); nil when
    /// the connection has none.
    func identity(_ name: String) -> String? {
        if name == "sourceIp" { return sourceIp }
        guard let field = name.dropping("clientCert."), let certificate else { return nil }
        return certificate.fields[field]
    }

    /// The `context.identity` names a mapping may read from the connection.
    static let identityNames = Set(["sourceIp"] + ClientCertificate.names.map { "clientCert." + $0 })

    /// `clientCert` as API Gateway puts it in an authorizer's event; null without one.
    var certificateJSON: JSONValue {
        guard let fields = certificate?.fields else { return .null }
        return .object([
            "clientCertPem": .string(fields["clientCertPem"] ?? ""), "subjectDN": .string(fields["subjectDN"] ?? ""),
            "issuerDN": .string(fields["issuerDN"] ?? ""), "serialNumber": .string(fields["serialNumber"] ?? ""),
            "validity": .object(["notBefore": .string(fields["validity.notBefore"] ?? ""), "notAfter": .string(fields["validity.notAfter"] ?? "")]),
        ])
    }
}

/// A client certificate's description, by the names mappings use after `clientCert.`.
struct ClientCertificate: Sendable {
    static let names = ["clientCertPem", "subjectDN", "issuerDN", "serialNumber", "validity.notBefore", "validity.notAfter"]
    let fields: [String: String]

    init?(_ certificate: NIOSSLCertificate) {
        guard let der = try? certificate.toDERBytes(), let parsed = try? X509Certificate(der: der) else { return nil }
        let validity = parsed.validityText
        fields = [
            "clientCertPem": parsed.pem, "subjectDN": parsed.subjectDN, "issuerDN": parsed.issuerDN, "serialNumber": parsed.serialHex,
            "validity.notBefore": validity.notBefore, "validity.notAfter": validity.notAfter,
        ]
    }
}
