/// A command-line failure: one line that names the problem and the argument it came from.
/// Never built from a secret value.
package struct CLIError: Error, CustomStringConvertible {
    package let description: String
    package var exitCode: Int32 = 1

    package init(_ argument: String, _ problem: any CustomStringConvertible) {
        description = "\(argument): \(problem)"
    }

    package init(message: String, exitCode: Int32 = 1) {
        description = message
        self.exitCode = exitCode
    }
}
