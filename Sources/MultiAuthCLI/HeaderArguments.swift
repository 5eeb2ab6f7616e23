import HTTPTypes
import MultiAuthCore
import MultiAuthSigV4

/// The one `-H 'Name: value'` parser of `sign` and `request`: split at the first `:`.
enum HeaderArguments {
    /// `sign`: each value kept exactly as written (SigV4 trims it when canonicalizing), in
    /// the signer's own header form.
    static func list(_ lines: [String]) throws -> HTTPHeaderList {
        var list = HTTPHeaderList()
        for line in lines {
            let field = try split(line)
            list.append(name: field.name, value: field.value)
        }
        return list
    }

    /// `request`: values trimmed of surrounding spaces and tabs, and checked, so a CR, LF or
    /// NUL is refused instead of starting another header.
    static func fields(_ lines: [String]) throws -> HTTPFields {
        var fields = HTTPFields()
        for line in lines {
            let field = try split(line)
            do { try fields.append(checkedName: field.name, value: field.value.trimmingHTTPWhitespace()) } catch {
                throw CLIError(message: "-H: \(error)", exitCode: 2)
            }
        }
        return fields
    }

    private static func split(_ line: String) throws -> HTTPHeaderList.Field {
        do { return try HTTPRequestText.splitHeaderLine(line) } catch { throw CLIError("-H", error) }
    }
}
