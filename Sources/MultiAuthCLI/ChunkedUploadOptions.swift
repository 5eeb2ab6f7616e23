public import ArgumentParser
package import MultiAuthAuthorization
package import MultiAuthSigV4

/// `--chunked` and its settings: an S3 streaming (aws-chunked) upload, as `multiauth request`
/// and `multiauth proxy` send one.
package struct ChunkedUploadOptions: ParsableArguments {
    package init() {}

    @Flag(help: "Send the body as an S3 streaming (aws-chunked) upload, signed chunk by chunk in constant memory (IAM only; a retry re-signs it and reads the file again from the start).")
    package var chunked = false
    @Option(help: "With --chunked: bytes per chunk (at least 8192).") var chunkSize: Int = 65_536
    @Option(help: "With --chunked: send an x-amz-checksum trailer, crc32 or sha256.") package var trailer: TrailingChecksum?
    @Flag(help: "With --chunked and --trailer: leave the chunks unsigned (STREAMING-UNSIGNED-PAYLOAD-TRAILER).") var unsignedChunks = false

    package func validate() throws {
        try ArgumentChecks.count(chunkSize, "--chunk-size", in: AWSChunkedUpload.minimumChunkSize...(64 << 20))
        if unsignedChunks, trailer == nil { throw ValidationError("--unsigned-chunks needs --trailer") }
    }

    /// How IAM covers the body: its hash, or (`--chunked`) an aws-chunked stream.
    /// - Throws: a usage error for `--chunked` with another mode than `--auth iam`.
    package func payloadSigning(auth: AuthorizationOptions.Auth) throws -> IAMAuthorizer.PayloadSigning {
        guard chunked else { return .signed }
        if auth != .iam { throw CLIError(message: "--chunked needs --auth iam", exitCode: 2) }
        switch (trailer, unsignedChunks) {
        case (nil, _): return .awsChunked(chunkSize: chunkSize, mode: .signedChunks)
        case (.some(let checksum), false): return .awsChunked(chunkSize: chunkSize, mode: .signedChunksWithTrailer(checksum))
        case (.some(let checksum), true): return .awsChunked(chunkSize: chunkSize, mode: .unsignedChunksWithTrailer(checksum))
        }
    }
}

extension TrailingChecksum: ExpressibleByArgument {}
