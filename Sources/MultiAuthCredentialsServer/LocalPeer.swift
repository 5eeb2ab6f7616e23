import MultiAuthCore
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Who is on the other end of a loopback TCP connection: the kernel's socket tables
/// (`/proc/net/tcp`, `/proc/net/tcp6`) list the client's socket, from its side, with the
/// user that owns it. Loopback TCP has no `SO_PEERCRED`; this is the same fact.
enum LocalPeer {
    /// The user owning the client socket of the connection from `peer` to `local`, or nil when
    /// no table lists it (not a local connection, or no /proc).
    static func owner(peer: SocketAddress, local: SocketAddress) -> UInt32? {
        guard let peerKey = key(peer), let localKey = key(local) else { return nil }
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // /proc files claim a size of 0: read them to the end, as the one bounded reader does.
            guard case .success(let bytes) = BoundedFileRead.contents(atPath: table, limit: 64 << 20) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 7, fields[1] == peerKey.0 || fields[1] == peerKey.1, fields[2] == localKey.0 || fields[2] == localKey.1 else {
                    continue
                }
                return UInt32(fields[7])
            }
        }
        return nil
    }

    /// The address as the tables write it: IPv4 as one little-endian word and the port
    /// (`0100007F:1F90`), and as an IPv4-mapped IPv6 address, which tcp6 uses for sockets
    /// that accept both; IPv6 as four little-endian words.
    private static func key(_ address: SocketAddress) -> (Substring, Substring)? {
        guard let port = address.port else { return nil }
        let portText = hex(UInt32(port), digits: 4)
        switch address {
        case .v4:
            // The tables print the address word as this (little-endian) host reads it.
            guard let bytes = bytes(of: address, family: AF_INET, count: 4) else { return nil }
            let v4Text = bytes.reversed().map { hex(UInt32($0), digits: 2) }.joined()
            let mapped = "0000000000000000FFFF0000" + v4Text
            return (Substring(v4Text + ":" + portText), Substring(mapped + ":" + portText))
        case .v6:
            guard let bytes = bytes(of: address, family: AF_INET6, count: 16) else { return nil }
            var text = ""
            for word in 0..<4 {
                for byte in bytes[(word * 4)..<(word * 4 + 4)].reversed() { text += hex(UInt32(byte), digits: 2) }
            }
            return (Substring(text + ":" + portText), Substring(text + ":" + portText))
        default:
            return nil
        }
    }

    /// The address's bytes in network order, from its text (`inet_pton`).
    private static func bytes(of address: SocketAddress, family: Int32, count: Int) -> [UInt8]? {
        guard let text = address.ipAddress else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        guard inet_pton(family, text, &bytes) == 1 else { return nil }
        return bytes
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
