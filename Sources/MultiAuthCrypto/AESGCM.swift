import CLibCrypto

/// AES-256-GCM authenticated encryption on OpenSSL's EVP interface.
package enum AESGCM {
    /// Key size in bytes.
    package static let keySize = 32
    /// Nonce size in bytes (96 bits, the size GCM is designed for).
    package static let nonceSize = 12
    /// Authentication tag size in bytes.
    package static let tagSize = 16

    /// Has OpenSSL build its table of ciphers now. OpenSSL 3 builds it at the first use of
    /// any cipher, about 1 ms of work; a program that knows it will soon seal or open can run
    /// this on another thread meanwhile. Safe from any thread, and a no-op after the first call.
    package static func prepare() {
        if let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) { EVP_CIPHER_free(cipher) }
    }

    /// Encrypts `plaintext` and authenticates it together with `associatedData`.
    /// - Returns: the ciphertext (same length as the plaintext) and the 16-byte tag.
    /// - Throws: ``CryptoError/invalidLength(expected:actual:)`` for a wrong key or nonce
    ///   size, ``CryptoError/cipherFailure`` if OpenSSL reports an error.
    package static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        try checkSizes(key: key, nonce: nonce)
        guard let context = EVP_CIPHER_CTX_new() else { throw .cipherFailure }
        defer { EVP_CIPHER_CTX_free(context) }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagSize)
        var length: Int32 = 0
        let ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1
            && EVP_CIPHER_CTX_ctrl(context, multiauth_EVP_CTRL_GCM_SET_IVLEN, Int32(nonceSize), nil) == 1
            && EVP_EncryptInit_ex(context, nil, nil, key, nonce) == 1
            && (associatedData.isEmpty
                || EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1)
            && (plaintext.isEmpty
                || EVP_EncryptUpdate(context, &ciphertext, &length, plaintext, Int32(plaintext.count)) == 1)
            && ciphertext.withUnsafeMutableBufferPointer { out in
                EVP_EncryptFinal_ex(context, out.baseAddress.map { $0 + Int(length) }, &length) == 1
            }
            && EVP_CIPHER_CTX_ctrl(context, multiauth_EVP_CTRL_GCM_GET_TAG, Int32(tagSize), &tag) == 1
        guard ok else { throw .cipherFailure }
        return (ciphertext, tag)
    }

    /// Decrypts and verifies. Nothing is returned unless the tag matches.
    /// - Throws: ``CryptoError/authenticationFailed`` when the ciphertext, the tag or the
    ///   associated data was altered, or the key is wrong.
    package static func open(
        _ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        guard tag.count == tagSize else { throw .invalidLength(expected: tagSize, actual: tag.count) }
        guard let context = EVP_CIPHER_CTX_new() else { throw .cipherFailure }
        defer { EVP_CIPHER_CTX_free(context) }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        var length: Int32 = 0
        var expectedTag = tag
        let prepared = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1
            && EVP_CIPHER_CTX_ctrl(context, multiauth_EVP_CTRL_GCM_SET_IVLEN, Int32(nonceSize), nil) == 1
            && EVP_DecryptInit_ex(context, nil, nil, key, nonce) == 1
            && (associatedData.isEmpty
                || EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1)
            && (ciphertext.isEmpty
                || EVP_DecryptUpdate(context, &plaintext, &length, ciphertext, Int32(ciphertext.count)) == 1)
            && EVP_CIPHER_CTX_ctrl(context, multiauth_EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &expectedTag) == 1
        guard prepared else { throw .cipherFailure }
        let verified = plaintext.withUnsafeMutableBufferPointer { out in
            EVP_DecryptFinal_ex(context, out.baseAddress.map { $0 + Int(length) }, &length) == 1
        }
        guard verified else {
            SecureMemory.zero(&plaintext)
            throw .authenticationFailed
        }
        return plaintext
    }

    private static func checkSizes(key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        guard key.count == keySize else { throw .invalidLength(expected: keySize, actual: key.count) }
        guard nonce.count == nonceSize else { throw .invalidLength(expected: nonceSize, actual: nonce.count) }
    }
}

/// Zeroing of secret buffers with `OPENSSL_cleanse`, which the optimizer cannot remove.
package enum SecureMemory {
    /// Overwrites every byte of `bytes` with zero.
    package static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { OPENSSL_cleanse(base, raw.count) }
        }
    }
}
