import MultiAuthCLI

/// `HOST:PORT`, as `--listen` takes it.
package struct ListenAddress {
    package let host: String
    package let port: Int

    /// The address `host`:`port`.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The address in `text`, `flag` naming it in errors.
    package init(_ text: String, flag: String = "--listen") throws {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw CLIError(flag, "expected HOST:PORT, such as 127.0.0.1:8080")
        }
        host = String(text[..<colon])
        self.port = port
    }
}
