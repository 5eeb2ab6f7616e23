import MultiAuthCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// systemd's readiness notice (sd_notify(3)) for `Type=notify` units: one datagram such as
/// `READY=1` to the socket `$NOTIFY_SOCKET` names (a path, or `@NAME` for an abstract
/// socket). Without the variable, as outside systemd, nothing is sent. A notice that cannot
/// be sent is reported, not fatal: systemd then times the start out and says so.
package enum SystemdNotify {
    /// Sends `state` (newline-separated `KEY=VALUE` lines) when `$NOTIFY_SOCKET` is set.
    package static func send(_ state: String) {
        guard let name = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !name.isEmpty else { return }
        if let problem = deliver(state, to: name) {
            StandardError.emit("multiauth-server: warning: cannot notify systemd at \(name): \(problem)")
        }
    }

    /// Sends `state` to the datagram socket `name`; the failure's reason, or nil.
    static func deliver(_ state: String, to name: String) -> String? {
        var path = Array(name.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // an abstract socket's name starts with NUL
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.first == 0 || path.first == UInt8(ascii: "/"), path.count < capacity else { return "not a socket path" }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                Array(state.utf8).withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
        return sent < 0 ? String(cString: strerror(errno)) : nil
    }
}
