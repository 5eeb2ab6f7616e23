package import HTTPTypes
package import Logging
import MultiAuthCore

/// `-v`: the library's debug log (signing stages, re-signing, retries, refreshes) and the
/// request as sent, on standard error, every secret through ``Redaction``.
package enum TraceLog {
    /// A logger on standard error: everything from debug up with `-v`, else warnings only.
    package static func logger(verbose: Bool) -> Logger {
        var logger = Logger(label: "multiauth") { _ in TraceLogHandler() }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }

    /// `> METHOD target` and `> Name: value` lines.
    package static func printRequest(_ request: HTTPRequest) {
        var lines = ["> \(request.method.rawValue) \(Redaction.target(request.path ?? "/"))"]
        if let authority = request.authority { lines.append("> Host: \(authority)") }
        lines += Redaction.lines(request.headerFields).map { "> " + $0 }
        StandardError.emit(lines.joined(separator: "\n"))
    }
}

/// Prints `* message:` and each metadata value's lines indented, as curl's `-v` marks notes;
/// warnings as `multiauth: warning: message`.
/// Values arrive already redacted by the library; header lines are redacted again here.
struct TraceLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let values = (metadata.merging(event.metadata ?? [:]) { $1 }).sorted { $0.key < $1.key }
        let multiline = values.filter { "\($0.value)".contains("\n") }
        let inline = values.filter { !"\($0.value)".contains("\n") }.map { "\($0.key)=\($0.value)" }
        let mark = event.level >= .warning ? "multiauth: warning: " : "* "
        var lines = [mark + "\(event.message)" + (inline.isEmpty ? "" : " (\(inline.joined(separator: ", ")))") + (multiline.isEmpty ? "" : ":")]
        for (_, value) in multiline {
            lines += "\(value)".split(separator: "\n", omittingEmptySubsequences: false).map { "*   " + Redaction.canonicalLine($0) }
        }
        StandardError.emit(lines.joined(separator: "\n"))
    }
}
