import MultiAuthCore
import Subprocess
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Opens a URL in the desktop's browser when there is a desktop; otherwise does nothing
/// (the URL is printed for the user in any case).
enum BrowserLauncher {
    /// Opens `url` in `$BROWSER` (else `xdg-open` on a desktop): returns once the browser has
    /// started (at most 5 s), without waiting for it to end; it is reaped when it does. False
    /// when there is no browser to start (no `$BROWSER` and no desktop) or the URL is refused. Only
    /// an `https:` or `http:` URL with no control character is opened: a server's `file:`
    /// URL, or a value a browser would take as a flag, never reaches it. The browser's output
    /// is discarded, so it cannot mix with what the command prints.
    @discardableResult
    static func open(_ url: String) async -> Bool {
        guard url.hasPrefix("https://") || url.hasPrefix("http://"), WireText.isSafe(url) else {
            StandardError.emit("multiauth: not opening \(Redaction.url(url)) in a browser: only http and https URLs are opened")
            return false
        }
        guard let command = browserCommand else { return false }
        // A name is looked up in PATH; a path (with a slash) is taken as it is.
        let program: Executable = command.contains("/") ? .path(.init(command)) : .name(command)
        let (started, signal) = AsyncStream<Never>.makeStream()
        Task.detached {
            _ = try? await Subprocess.run(program, arguments: [url], input: .none, output: .discarded, error: .discarded) { _ in
                signal.finish()
            }
            signal.finish()  // it could not be started
        }
        _ = await Deadline.run(for: .seconds(5)) { for await _ in started {} }
        return true
    }
    /// True when there is a browser to open a URL in: `$BROWSER`, or a desktop for `xdg-open`.
    static var isAvailable: Bool { browserCommand != nil }

    private static var browserCommand: String? {
        let environment = ProcessInfo.processInfo.environment
        if let browser = environment["BROWSER"], !browser.isEmpty { return browser }
        let desktop = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        return desktop ? "xdg-open" : nil
    }
}

/// A QR code of the set-up URI on standard error, drawn by Debian's `qrencode` when it is
/// installed (nothing otherwise).
enum QRCode {
    /// Draws `text`, which holds the TOTP secret: it goes to `qrencode` on its standard input,
    /// never on its command line (which any user of the host can read).
    static func show(_ text: String) async {
        _ = await Deadline.run(for: .seconds(10)) { () async -> Bool in
            let drawn = try? await Subprocess.run(
                .name("qrencode"), arguments: ["-t", "ANSIUTF8"], input: .string(text), output: .currentStandardError, error: .discarded)
            return drawn != nil
        }
    }
}
