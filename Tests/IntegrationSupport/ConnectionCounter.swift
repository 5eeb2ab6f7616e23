import Foundation
import Synchronization

/// A TCP listener on 127.0.0.1 that accepts and closes every connection and counts them: a
/// test that must send nothing to some host points that host here and checks the count is 0.
package final class ConnectionCounter: Sendable {
    package let port: UInt16
    private let socket: Int32
    private let accepted = Mutex(0)

    package init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard socket >= 0, bound == 0, listen(socket, 16) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let listener = socket
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }  // closed by stop()
                accepted.withLock { $0 += 1 }
                close(client)
            }
        }
    }

    /// Connections accepted so far.
    package var count: Int { accepted.withLock { $0 } }

    /// Stops accepting.
    package func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
