import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on 127.0.0.1 that takes one connection, reads the request head, writes
/// `answer` (or nothing) and closes: a server that misbehaves on purpose, in the test's own
/// process, for the transport's failure classes.
final class OneShotServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let received = DispatchSemaphore(value: 0)
    private var head = ""

    /// Listens; `answer` is written after the request head arrives (nil: close without a word).
    init(answer: String?) throws {
        let (fd, port) = try Self.listening()
        listener = fd
        self.port = port
        Thread.detachNewThread { [self] in
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !bytes.ends(with: Array("\r\n\r\n".utf8)) {
                let count = read(connection, &chunk, chunk.count)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            head = String(decoding: bytes, as: UTF8.self)
            if let answer { _ = answer.utf8CString.withUnsafeBufferPointer { write(connection, $0.baseAddress, $0.count - 1) } }
            close(connection)
            received.signal()
        }
    }

    /// A port nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let (fd, port) = try listening()
        close(fd)
        return port
    }

    /// A socket listening on 127.0.0.1 at a port the kernel picked.
    private static func listening() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard fd >= 0, bound == 0, listen(fd, 1) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EADDRNOTAVAIL
            close(fd)
            throw POSIXError(code)
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The request head the server read (waits up to 10 s for it).
    func requestHead() -> String {
        _ = received.wait(timeout: .now() + 10)
        return head
    }

    // shutdown wakes the thread still waiting in accept, so it never takes a later socket's number.
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
