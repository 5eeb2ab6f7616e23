import CLibCrypto

/// A certificate as API Gateway describes a client's to authorizers and integrations
/// (`clientCert`): names in RFC 2253 form, the serial number in colon-separated hex, and the
/// validity dates as OpenSSL prints them (`May 28 12:30:02 2019 GMT`).
extension X509Certificate {
    /// The subject's distinguished name (`CN=client,O=Example`), as `openssl x509 -subject -nameopt RFC2253` prints it.
    package var subjectDN: String { Self.name(X509_get_subject_name(pointer)) }

    /// The issuer's distinguished name, in the same form.
    package var issuerDN: String { Self.name(X509_get_issuer_name(pointer)) }

    /// The serial number as lowercase hex pairs joined by colons (`0a:1b:…`).
    package var serialHex: String {
        guard let serial = X509_get0_serialNumber(pointer), let number = ASN1_INTEGER_to_BN(serial, nil) else { return "" }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
        _ = BN_bn2bin(number, &bytes)
        if bytes.isEmpty { bytes = [0] }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: ":")
    }

    /// `notBefore` and `notAfter` as OpenSSL prints them.
    package var validityText: (notBefore: String, notAfter: String) {
        (Self.time(X509_get0_notBefore(pointer)), Self.time(X509_get0_notAfter(pointer)))
    }

    /// The certificate in PEM.
    package var pem: String {
        MemoryBIO.written { PEM_write_bio_X509($0, pointer) == 1 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func name(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        return MemoryBIO.written { X509_NAME_print_ex($0, name, 0, multiauth_XN_FLAG_RFC2253) >= 0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func time(_ time: UnsafePointer<ASN1_TIME>?) -> String {
        guard let time else { return "" }
        return MemoryBIO.written { ASN1_TIME_print($0, time) == 1 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
