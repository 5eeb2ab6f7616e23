import CPKCS11
import Foundation
@testable import MultiAuthPKCS11
import MultiAuthSigV4
import Synchronization
import Testing

/// A key in a real SoftHSM token of the test's own (its own configuration and token folder),
/// whose session the token loses, as when it is reset: the next signature opens a new session
/// and logs in again. Signatures are checked by `openssl dgst -verify`, not by our code.
@Suite(.serialized) struct PKCS11SessionTests {
    static let module = "/usr/lib/softhsm/libsofthsm2.so"

    static func run(_ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(arguments.joined(separator: " "))")
    }

    /// Whether openssl verifies `signature` (DER) of `message` with the token key's public half.
    static func verifies(_ signature: [UInt8], _ message: [UInt8], in folder: URL) throws -> Bool {
        try Data(signature).write(to: folder.appendingPathComponent("sig.der"))
        try Data(message).write(to: folder.appendingPathComponent("message"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "message"]
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test func aLostSessionIsOpenedAgainAndTheSignatureMade() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-pkcs11-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tokens"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = folder.appendingPathComponent("softhsm2.conf")
        try Data("directories.tokendir = \(folder.path)/tokens\nobjectstore.backend = file\n".utf8).write(to: configuration)
        setenv("SOFTHSM2_CONF", configuration.path, 1)
        try Self.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"], in: folder)
        try Self.run(["openssl", "pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: folder)
        try Self.run(["softhsm2-util", "--init-token", "--free", "--label", "session-test", "--so-pin", "000000", "--pin", "1234"], in: folder)
        try Self.run(["softhsm2-util", "--import", "key.pem", "--token", "session-test", "--label", "host", "--id", "01", "--pin", "1234"], in: folder)

        let key = try await PKCS11Key.open(PKCS11URI("pkcs11:token=session-test;object=host?pin-value=1234"), module: Self.module)
        let message = Array("signed before and after the token lost the session".utf8)
        #expect(try Self.verifies(try await key.signature(for: message), message, in: folder))
        // The token forgets every session, as a reset or a removal does.
        key.opened.withLock { opened in
            var slot = ck_session_info()
            _ = key.module.functions.pointee.C_GetSessionInfo?(opened.session, &slot)
            _ = key.module.functions.pointee.C_CloseAllSessions?(slot.slot_id)
        }
        #expect(try Self.verifies(try await key.signature(for: message), message, in: folder), "a new session signs")
        #expect(try Self.verifies(try await key.signature(for: message), message, in: folder), "and keeps signing")
    }
}
