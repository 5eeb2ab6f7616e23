import CLibCrypto

/// SHA-1, for names only: the AWS CLI names its SSO token cache files by the SHA-1 of the
/// session name or start URL. Never used for anything that must resist collisions.
package enum CacheKeyDigest {
    /// The SHA-1 of `text`'s UTF-8 bytes as 40 lowercase hexadecimal characters.
    package static func sha1Hex(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { input in
            _ = SHA1(input.baseAddress, input.count, &digest)
        }
        return Hex.encode(digest)
    }
}
