public import Logging

extension Logger {
    /// A logger that drops everything: the default wherever MultiAuth accepts a `Logger`.
    public static let disabled = Logger(label: "multiauth", factory: { _ in SwiftLogNoOpLogHandler() })
}
