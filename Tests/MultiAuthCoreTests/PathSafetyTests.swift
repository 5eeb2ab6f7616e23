import Foundation
import MultiAuthCore
import Testing

/// Issue 45, item 8: `--access-log` followed a symbolic link and appended to a 0644 file.
/// Files opened for appending are created 0600, never through a link, never readable by
/// others, never another user's.
@Suite(.timeLimit(.minutes(1))) struct PathSafetyTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-pathsafety-\(UUID().uuidString)").path

    init() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }

    @Test func aNewFileIsCreated0600AndAnOwnOneReopened() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/access.log"
        close(try PathSafety.openForAppending(path))
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        close(try PathSafety.openForAppending(path))
    }

    @Test func aLinkAFileOthersCanReadAndAnotherUsersFileAreRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/target"
        #expect(FileManager.default.createFile(atPath: target, contents: Data(), attributes: [.posixPermissions: 0o600]))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: target)
        #expect(throws: PathSafetyError.self) { try PathSafety.openForAppending(folder + "/link") }
        let open = folder + "/open.log"
        #expect(FileManager.default.createFile(atPath: open, contents: Data(), attributes: [.posixPermissions: 0o644]))
        #expect(throws: PathSafetyError.self) { try PathSafety.openForAppending(open) }
        if geteuid() == 0 {
            let theirs = folder + "/theirs.log"
            #expect(FileManager.default.createFile(atPath: theirs, contents: Data(), attributes: [.posixPermissions: 0o600]))
            #expect(chown(theirs, 65534, 65534) == 0)
            #expect(throws: PathSafetyError.self) { try PathSafety.openForAppending(theirs) }
        }
    }
}
