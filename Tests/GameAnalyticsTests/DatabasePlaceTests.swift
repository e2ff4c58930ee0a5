import Foundation
import Testing
@testable import GameAnalytics

/// Where a study database may be created (docs/game-telemetry.md, "Where the database
/// is"): a missing folder is named, not made, and nothing is created.
@Suite struct DatabasePlaceTests {
    func message(_ body: () throws -> Void) -> GameError? {
        do { try body() } catch let e as GameError { return e } catch { return nil }
        return nil
    }

    @Test func aMissingFolderIsNamedAndNothingIsCreated() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("no/such/x.sqlite").path
        let e = message { _ = try StudyDatabase(path: path) }
        #expect(e?.file == path)
        #expect(
            e?.message == "cannot create the database: the folder \(dir.path)/no/such does not exist (create it first)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func aRelativePathNamesTheFolderAsGiven() {
        let e = message { _ = try StudyDatabase(path: "no-such-folder-\(UUID().uuidString)/x.sqlite") }
        #expect(e?.message.hasPrefix("cannot create the database: the folder no-such-folder-") == true)
    }

    @Test func aParentThatIsAFileAndAPathThatIsAFolderAreRefused() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        let e = message { _ = try StudyDatabase(path: file.appendingPathComponent("x.sqlite").path) }
        #expect(e?.message == "cannot create the database: \(file.path) is a file, not a folder")
        let f = message { _ = try StudyDatabase(path: dir.path) }
        #expect(f?.message == "is a folder, not a database file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["plain"])
    }

    @Test func anExistingFolderStillGetsANewDatabase() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        _ = try StudyDatabase(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try StudyDatabase(path: path, create: false).readCohort().players.isEmpty)
    }
}
