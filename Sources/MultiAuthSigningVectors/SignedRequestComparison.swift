import MultiAuthSigV4

/// Compares signed requests the way the suites define them: the request line's method and
/// path exactly, the query as a multiset of pairs, headers as a case-insensitive multiset
/// (order differs between implementations), and the body exactly.
enum SignedRequestComparison {
    static func diff(expected: String, actual: String, ignoringSignature: Bool) -> String? {
        let want: HTTPRequestText
        let got: HTTPRequestText
        do {
            want = try HTTPRequestText(parsing: Array(expected.utf8))
            got = try HTTPRequestText(parsing: Array(actual.utf8))
        } catch {
            return "cannot parse signed request: \(error)"
        }
        var problems: [String] = []
        if want.method != got.method { problems.append("method: expected \(want.method), actual \(got.method)") }
        let (wantPath, wantQuery) = split(want.target)
        let (gotPath, gotQuery) = split(got.target)
        if wantPath != gotPath { problems.append("path: expected \(wantPath), actual \(gotPath)") }
        problems += multisetDifference(
            "query parameter", expected: masked(wantQuery, ignoringSignature), actual: masked(gotQuery, ignoringSignature))
        problems += multisetDifference(
            "header", expected: normalized(want.headers, ignoringSignature), actual: normalized(got.headers, ignoringSignature))
        if want.body != got.body { problems.append("body differs (\(want.body.count) vs \(got.body.count) bytes)") }
        return problems.isEmpty ? nil : problems.joined(separator: "\n") + "\nexpected (full):\n" + TextDiff.indent(expected)
            + "\nactual (full):\n" + TextDiff.indent(actual)
    }

    static func split(_ target: String) -> (String, [String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, []) }
        let query = target[target.index(after: mark)...].split(separator: "&").map(String.init)
        return (String(target[..<mark]), query)
    }

    static func masked(_ query: [String], _ ignoringSignature: Bool) -> [String] {
        guard ignoringSignature else { return query }
        return query.map { $0.hasPrefix("X-Amz-Signature=") ? "X-Amz-Signature=<not compared>" : $0 }
    }

    /// The signature a signed request carries: `X-Amz-Signature` or the `Authorization` value's.
    static func embeddedSignature(_ text: String) -> String? {
        guard let request = try? HTTPRequestText(parsing: Array(text.utf8)) else { return nil }
        let (_, query) = split(request.target)
        if let pair = query.first(where: { $0.hasPrefix("X-Amz-Signature=") }) {
            return String(pair.dropFirst("X-Amz-Signature=".count))
        }
        guard let authorization = request.headers.first(named: "authorization"),
            let range = authorization.firstRange(of: "Signature=")
        else { return nil }
        return String(authorization[range.upperBound...]).trimmingHTTPWhitespace()
    }

    static func normalized(_ headers: HTTPHeaderList, _ ignoringSignature: Bool) -> [String] {
        headers.map { field in
            var value = field.value.trimmingHTTPWhitespace()
            if ignoringSignature, field.name.lowercased() == "authorization", let range = value.firstRange(of: "Signature=") {
                value = String(value[..<range.upperBound]) + "<not compared: stale in the suite>"
            }
            return field.name.lowercased() + ":" + value
        }
    }

    static func multisetDifference(_ what: String, expected: [String], actual: [String]) -> [String] {
        var remaining = actual
        var problems: [String] = []
        for item in expected {
            if let index = remaining.firstIndex(of: item) {
                remaining.remove(at: index)
            } else {
                problems.append("missing \(what): \(item)")
            }
        }
        problems += remaining.map { "unexpected \(what): \($0)" }
        return problems
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
