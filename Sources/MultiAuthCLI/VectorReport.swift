import MultiAuthSigningVectors

/// The text `vectors verify` prints: failures with diffs, skip reasons, and the closing
/// `N passed, N failed[, N skipped]` line.
struct VectorReport {
    let outcomes: [CaseOutcome]

    var passed: Int { outcomes.filter(\.passed).count }
    var failed: Int { outcomes.filter { !$0.failures.isEmpty }.count }
    var skipped: Int { outcomes.filter { $0.skipReason != nil }.count }

    func render(verbose: Bool) -> String {
        var lines: [String] = []
        for outcome in outcomes {
            if let reason = outcome.skipReason {
                lines.append("SKIP \(outcome.name): \(reason)")
            } else if outcome.failures.isEmpty {
                if verbose { lines.append("PASS \(outcome.name) (\(outcome.checks.count) checks)") }
            } else {
                for failure in outcome.failures {
                    lines.append("FAIL \(outcome.name): \(failure.check.rawValue)")
                    lines.append(failure.diff.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
                }
            }
        }
        let checks = outcomes.reduce(0) { $0 + $1.checks.count }
        lines.append("\(checks) stage checks in \(outcomes.count - skipped) cases")
        lines.append("\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : ""))
        return lines.joined(separator: "\n")
    }
}
