import Foundation
import Testing
@testable import GameAnalytics

/// The rows digest that keys a public release (docs/game-privacy.md, "The data digest"): a
/// function of the stored rows alone, whatever order they were written in and however
/// SQLite keeps them, and different for any change of a row.
@Suite struct RowsDigestTests {
    func database(_ dir: URL, _ name: String, _ players: [Player]) throws -> StudyDatabase {
        let db = try StudyDatabase(path: dir.appendingPathComponent(name).path)
        try db.store(cohort: Cohort(players: players))
        return db
    }

    @Test func sameRowsSameDigestWhateverTheOrderOrTheFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let players = Simulator(players: 6, seed: 3).run().players
        let a = try database(dir, "a.sqlite", players)
        let b = try database(dir, "b.sqlite", players.reversed())
        #expect(try a.rowsDigest() == b.rowsDigest())
        try a.exec("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")
        #expect(try a.rowsDigest() == b.rowsDigest())
        // The snapshot's digest is the same one, read with the cohort.
        let snap = try a.snapshot()
        #expect(snap.rowsDigest == (try b.rowsDigest()) && snap.cohort.players.count == 6)
    }

    @Test func anyChangedRowChangesTheDigest() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let players = Simulator(players: 5, seed: 8).run().players
        let full = try database(dir, "full.sqlite", players)
        let fewer = try database(dir, "fewer.sqlite", Array(players.dropLast()))
        #expect(try full.rowsDigest() != fewer.rowsDigest())
        let before = try full.rowsDigest()
        try full.exec(
            "UPDATE events SET t_ms = t_ms + 1 WHERE rowid = (SELECT MIN(rowid) FROM events WHERE kind = 'tap')")
        let tapMoved = try full.rowsDigest()
        #expect(tapMoved != before)
        try full.exec(
            "UPDATE surveys SET gender = COALESCE(gender, '') || 'x' WHERE player = (SELECT MIN(player) FROM surveys)")
        #expect(try full.rowsDigest() != tapMoved)
    }
}
