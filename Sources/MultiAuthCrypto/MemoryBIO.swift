import CLibCrypto

/// What an OpenSSL function writes to a memory BIO (PEM, a printed name or time), as bytes.
enum MemoryBIO {
    /// The bytes `write` puts in a fresh memory BIO; nil when it fails or writes nothing.
    static func written(_ write: (OpaquePointer) -> Bool) -> [UInt8]? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard length > 0, let data else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
