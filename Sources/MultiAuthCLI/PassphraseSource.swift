import MultiAuthCore
import MultiAuthCrypto
import MultiAuthStore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a passphrase comes from, in order: a file (checked like a secret file), an
/// environment variable, or a no-echo prompt on the terminal.
enum PassphraseSource {
    /// A key file when one is named, else a passphrase from the usual sources.
    static func keySource(
        keyFile: String?, passphraseFile: String?, environmentVariable: String, prompt: String, confirm: Bool
    ) throws -> StoreKeySource {
        if let keyFile { return .keyFile(path: keyFile) }
        return .passphrase(try read(file: passphraseFile, environmentVariable: environmentVariable, prompt: prompt, confirm: confirm))
    }

    static func read(file: String?, environmentVariable: String, prompt: String, confirm: Bool) throws -> [UInt8] {
        if let file { return try fromFile(file) }
        if let value = ProcessInfo.processInfo.environment[environmentVariable] {
            return try SecretInput.text(Array(value.utf8), from: environmentVariable)
        }
        guard let first = TerminalPrompt.readSecret(prompt) else {
            throw CLIError(
                message: "no passphrase: set \(environmentVariable), give a passphrase file, or run in a terminal",
                exitCode: 8)
        }
        if confirm {
            guard let second = TerminalPrompt.readSecret("Repeat: "), second == first else {
                throw CLIError(message: "the passphrases do not match", exitCode: 8)
            }
        }
        return first
    }

    private static func fromFile(_ path: String) throws -> [UInt8] {
        do {
            guard try StoreFileCheck.secretFileExists(path) else {
                throw CLIError(message: "--passphrase-file: cannot read \(path)", exitCode: 8)
            }
            switch BoundedFileRead.contents(atPath: path, limit: BoundedFileRead.secretLimit) {
            case .success(let data): return try SecretInput.text(data, from: path)
            case .failure(let failure): throw CLIError(message: "--passphrase-file: \(path) \(failure)", exitCode: 8)
            }
        } catch let error as StoreError {
            throw CLIError(message: error.messageWithHint, exitCode: error.exitCode)
        }
    }
}

/// The one rule for secrets read from a file, an environment variable or standard input
/// (passphrases, `store set`): one line ending at the end (LF or CRLF, as `echo` or an editor
/// adds) is removed and everything else is kept; an empty secret is refused.
enum SecretInput {
    static let rule = "one trailing line ending (LF or CRLF) is removed, everything else is kept, and an empty secret is refused"

    static func text(_ bytes: [UInt8], from source: String) throws -> [UInt8] {
        var bytes = bytes
        if bytes.last == 0x0a {
            bytes.removeLast()
            if bytes.last == 0x0d { bytes.removeLast() }
        }
        guard !bytes.isEmpty else { throw CLIError(message: "\(source) is empty: a secret cannot be empty", exitCode: 2) }
        return bytes
    }
}

/// Reads a line from the controlling terminal with echo off.
enum TerminalPrompt {
    static func readSecret(_ prompt: String) -> [UInt8]? {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(descriptor, TCSAFLUSH, &silent)
        defer {
            tcsetattr(descriptor, TCSAFLUSH, &original)
            _ = write(descriptor, "\n", 1)
        }
        _ = prompt.withCString { write(descriptor, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != 0x0a {
            line.append(byte)
        }
        return line
    }
}

/// Standard input and output as bytes, without FileHandle.
package enum FileHandleless {
    package static func readStandardInput() -> [UInt8] {
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            contents += chunk[0..<count]
        }
        SecureMemory.zero(&chunk)
        return contents
    }

    package static func writeStandardOutput(_ bytes: [UInt8]) {
        _ = writeAll(bytes, to: STDOUT_FILENO)
    }

    /// Writes every byte to `descriptor` (retrying after a signal); false, with `errno` set,
    /// when the descriptor refuses.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { write(descriptor, $0 + offset, raw.count - offset) } ?? 0
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}
