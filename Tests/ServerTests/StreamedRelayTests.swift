import Foundation
import IntegrationSupport
import Testing

/// Responses go back through `multiauth proxy` and `multiauth gateway` as they arrive. The
/// upstream is scripts/peers/fault_server.py: `/stream/N` sends N bytes as fast as they are
/// read, `/cut/N` announces N bytes and closes after half.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.faultAvailable && Peers.available, Peers.reason)) struct StreamedRelayTests {
    static let size = 300 << 20

    /// curl's exit status, bytes received and HTTP status, the body thrown away.
    static func download(_ url: String, headers: [String] = []) async throws -> (exit: Int32, bytes: Int, status: Int) {
        try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "-o", "/dev/null", "-w", "%{size_download} %{http_code}"] + headers.flatMap { ["-H", $0] } + [url]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let fields = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")
            process.waitUntilExit()
            return (process.terminationStatus, Int(fields.first ?? "") ?? -1, Int(fields.last ?? "") ?? -1)
        }
    }

    /// 300 MiB came back as a 502 while responses were held whole (at most 64 MiB); now it
    /// passes through with the proxy's memory far below it.
    @Test func aLargeResponseComesBackThroughTheProxyInFlatMemory() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--auth", "api-key", "--api-key", "k"])
        defer { #expect(proxy.stop() == 0) }
        let run = try await Self.download(proxy.url + "/stream/\(Self.size)")
        #expect(run.exit == 0 && run.status == 200 && run.bytes == Self.size, "\(run)")
        let peak = try #require(proxy.peakRSSKiB)
        #expect(peak < 160 * 1024, "peak RSS \(peak) KiB")
        print("proxy peak RSS after a 300 MiB response: \(peak) KiB")
    }

    @Test func aLargeResponseComesBackThroughTheGatewayInFlatMemory() async throws {
        let gateway = try GatewayProcess(["gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--api-key", "ci=gw-key-123"])
        defer { #expect(gateway.stop() == 0) }
        let run = try await Self.download(gateway.url + "/stream/\(Self.size)", headers: ["x-api-key: gw-key-123"])
        #expect(run.exit == 0 && run.status == 200 && run.bytes == Self.size, "\(run)")
        let peak = try #require(gateway.peakRSSKiB)
        #expect(peak < 160 * 1024, "peak RSS \(peak) KiB")
    }

    /// The upstream's Content-Length goes on with its head, so a client can tell a body cut
    /// short (curl: exit 18, "partial file"); the proxy keeps serving.
    @Test func anUpstreamThatStopsHalfwayCutsTheResponseShort() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--auth", "api-key", "--api-key", "k"])
        defer { #expect(proxy.stop() == 0) }
        let cut = try await Self.download(proxy.url + "/cut/1000000")
        #expect(cut.exit == 18 && cut.status == 200 && cut.bytes < 1_000_000, "\(cut)")
        let next = try await Self.download(proxy.url + "/stream/1000")
        #expect(next.exit == 0 && next.bytes == 1000, "\(next)")
    }
}
