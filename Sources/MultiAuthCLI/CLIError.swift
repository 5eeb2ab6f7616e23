/// A command-line failure: one line that names the problem and the argument it came from.
/// Never built from a secret value.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    var exitCode: Int32 = 1

    init(_ argument: String, _ problem: any CustomStringConvertible) {
        description = "\(argument): \(problem)"
    }

    init(message: String, exitCode: Int32 = 1) {
        description = message
        self.exitCode = exitCode
    }
}
