import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import SecureSMS

/// A read-only open of a keystore whose folder may not be written writes nothing: no
/// lock file, no counted try (docs/securesms-keystore.md, "Read-only folders"). The
/// whole build in a read-only folder, and in a folder the builder may not write, is
/// Tests/e2e/test_cli_defects.py.
@Suite struct ReadOnlyFolderTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Every file of `dir` with its bytes.
    func snapshot(_ dir: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            out[name] = try Data(contentsOf: dir.appendingPathComponent(name))
        }
        return out
    }

    func newStore() throws -> (Keystore, URL) {
        let dir = try tempDir()
        let ks = try Keystore.create(
            at: dir.appendingPathComponent("me.keystore"), account: "alice", password: "correct horse",
            lockSeconds: 600, kdf: testKDF(), now: t0)
        return (ks, dir)
    }

    @Test func theUncountedOpenWritesNothingRightOrWrong() throws {
        let (ks, dir) = try newStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try snapshot(dir)
        #expect(before.keys.sorted() == ["me.keystore"])
        for _ in 0..<5 {   // more than max_failures: nothing is counted, nothing locks
            #expect(throws: SecureSMSError.wrongPasswordNotCounted) {
                try Keystore.openUncounted(at: ks.url, password: "wrong", now: t0, derive: Keystore.derive)
            }
        }
        var opened = try Keystore.openUncounted(at: ks.url, password: "correct horse", now: t0, derive: Keystore.derive)
        #expect(opened.account == "alice")
        #expect(throws: SecureSMSError.self) { try opened.save() }
        #expect(try snapshot(dir) == before)
    }

    @Test func theUncountedOpenHonoursASetLock() throws {
        let (ks, dir) = try newStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        for p in ["a", "b", "c"] { _ = try? Keystore.open(at: ks.url, password: p, now: t0) }
        let until = t0.addingTimeInterval(600)
        #expect(throws: SecureSMSError.locked(until: until)) {
            try Keystore.openUncounted(at: ks.url, password: "correct horse", now: t0, derive: Keystore.derive)
        }
        #expect(
            try Keystore.openUncounted(at: ks.url, password: "correct horse", now: until, derive: Keystore.derive)
                .account == "alice")
    }

    @Test func aWritableFolderKeepsTheCountedOpen() throws {
        let (ks, dir) = try newStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(Keystore.folderIsWritable(of: ks.url))
        #expect(throws: SecureSMSError.wrongPassword(remaining: 2)) {
            try Keystore.open(at: ks.url, password: "wrong", now: t0, readOnly: true)
        }
        #expect(try Keystore.lockoutState(at: ks.url).failures == 1)
    }

    @Test func aFolderWithoutWritePermissionIsNotWritable() throws {
        // chmod a-w: read-only for every user, root too (root's writes are not stopped by
        // the mode, so the mode itself is asked)
        let (ks, dir) = try newStore()
        defer { chmod(dir.path, 0o700); try? FileManager.default.removeItem(at: dir) }
        chmod(dir.path, 0o500)
        #expect(!Keystore.folderIsWritable(of: ks.url))
        let before = try snapshot(dir)
        #expect(throws: SecureSMSError.wrongPasswordNotCounted) {
            try Keystore.open(at: ks.url, password: "wrong", now: t0, readOnly: true)
        }
        #expect(try Keystore.open(at: ks.url, password: "correct horse", now: t0, readOnly: true).account == "alice")
        #expect(try snapshot(dir) == before)
    }
}
