import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCore
@testable import MultiAuthReverseProxy
import MultiAuthTesting
import Testing

import Foundation

/// Quota counts kept in a state file, in process with a fixed clock: a file that holds no
/// counts stops the start and is never overwritten; `resetState` keeps it aside; a failed
/// write is tried again. Each test has its own folder.
struct UsageLimitsTests {
    static let plans = try! UsagePlans.load(
        Array(#"{"usagePlans": [{"name": "gold", "quota": {"limit": 5, "period": "DAY"}, "apiKeys": ["gold-key"]}]}"#.utf8), name: "plans.json",
        knownKeys: ["gold-key"])
    static let clock = TimeSource { 1_700_000_000 }

    static func admitted(_ limits: UsageLimits) -> Bool {
        if case .pass = limits.admit(key: "gold-key", route: "GET /x") { return true }
        return false
    }

    /// A count file with a byte appended, and one a byte over the 16 MiB read (sparse: its
    /// size is what is checked first).
    @Test(arguments: [false, true])
    func aStateFileWithoutCountsStopsTheStartAndIsKept(oversized: Bool) throws {
        let folder = TemporaryFolder()
        let path = folder.file("usage.json")
        try Data(#"{"gold-key": {"period": 1699920000, "used": 2}}x"#.utf8).write(to: URL(fileURLWithPath: path))
        if oversized { #expect(truncate(path, (16 << 20) + 1) == 0) }
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect {
            _ = try UsageLimits(Self.plans, stateFile: path, clock: Self.clock)
        } throws: { error in
            guard let error = error as? ReverseProxyError, case .unreadableUsageState(let named, _) = error else { return false }
            return named == path && "\(error)".contains(path)
        }
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == before, "the file is untouched")
        #expect(try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 12) == Data(#"{"gold-key":"#.utf8))
    }

    @Test func resetKeepsTheOldFileAsideAndCountsFromZero() throws {
        let folder = TemporaryFolder()
        let path = folder.file("usage.json")
        let bad = Array(#"{"gold-key": {"period": 1699920000, "used": 5}}!"#.utf8)
        try Data(bad).write(to: URL(fileURLWithPath: path))
        let limits = try UsageLimits(Self.plans, stateFile: path, resetState: true, clock: Self.clock)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".unreadable-1700000000")) == Data(bad))
        for _ in 0..<5 { #expect(Self.admitted(limits)) }
        #expect(!Self.admitted(limits), "the sixth of a 5-a-day quota is refused")
        limits.flush()
        let again = try UsageLimits(Self.plans, stateFile: path, clock: Self.clock)
        #expect(!Self.admitted(again), "the counts written survive a restart")
    }

    @Test func aFailedWriteIsTriedAgain() throws {
        let folder = TemporaryFolder()
        let blocked = folder.file("missing-folder")
        let path = blocked + "/usage.json"
        let limits = try UsageLimits(Self.plans, stateFile: path, clock: Self.clock)
        #expect(Self.admitted(limits))
        limits.flush()
        #expect(!FileManager.default.fileExists(atPath: path), "the folder is not there: the write fails")
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: false)
        limits.flush()
        let written = try JSONDecoding.decode([String: [String: Double]].self, from: Array(Data(contentsOf: URL(fileURLWithPath: path))), what: "counts")
        #expect(written["gold-key"]?["used"] == 1, "the count kept dirty is written at the next flush")
    }
}
