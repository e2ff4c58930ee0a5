// Compiled only with the game domain.
#if DOMAIN_GAME
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import GameAnalytics
import StudyStore

// MARK: - `game: database:` on PostgreSQL (docs/store.md)

extension GameSection {
    /// The game section's `database:` when it names PostgreSQL (`postgres://…`,
    /// `postgresql://…`, `postgres:`), nil for a SQLite path or no database. A password
    /// in it is refused, pointing to where a password belongs.
    static func postgres(_ config: SectionConfig) throws -> StoreLocation? {
        guard let s = try config.string("database"), StoreLocation.isPostgres(s) else { return nil }
        do { return try StoreLocation.parse(s, place: "game.database") } catch {
            throw config.errorNamingKey("database", error.message)
        }
    }

    /// A study database as messages name it: a SQLite file relative to the project, a
    /// PostgreSQL URL as written (it holds no password).
    static func shown(_ location: StoreLocation, _ project: Project) -> String {
        switch location {
        case .sqlite(let path): return project.display(URL(fileURLWithPath: path))
        case .postgres(_, let shown): return shown
        }
    }

    /// A PostgreSQL database is no file whose bytes the build cache can compare: its
    /// cohort unit's salt ends in `;store=` and the SHA-256 of what the unit reads from it
    /// — "dossier-store-v1", the rows digest (docs/game-privacy.md, "The data digest"), then
    /// each player's result key as `player` 0x00 `key` 0x0A in byte order of the players —
    /// read in one snapshot, so the unit is rebuilt exactly when the data changes. Nothing
    /// for SQLite (the file is the unit's input) or telemetry files.
    static func storeSalt(_ store: StoreLocation?) throws -> String {
        guard let store, case .postgres = store else { return "" }
        do throws(GameError) {
            let db = try StudyDatabase(location: store, create: false)
            let (rows, keys) = try db.read { () throws(GameError) -> (Data, [String: String]) in
                (try db.rowsDigest(), try db.resultKeys())
            }
            var h = SHA256()
            h.update(data: Data("dossier-store-v1".utf8))
            h.update(data: rows)
            for player in keys.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                h.update(data: Data(player.utf8) + [0] + Data(keys[player]!.utf8) + [0x0A])
            }
            return ";store=" + h.finalize().map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
        } catch {
            throw DossierError(file: error.file, line: error.line, column: error.column, error.message)
        }
    }
}
#endif
