// Compiled only with the game domain.
#if DOMAIN_GAME
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StudyStore

// MARK: - `game: database:` on PostgreSQL (docs/store.md)

extension GameSection {
    /// The game section's `database:` when it names PostgreSQL (`postgres://…`,
    /// `postgresql://…`, `postgres:`), nil for a SQLite path or no database. A password
    /// in it is refused, pointing to where a password belongs.
    static func postgres(_ config: SectionConfig) throws -> StoreLocation? {
        guard let s = try config.string("database"), StoreLocation.isPostgres(s) else { return nil }
        do { return try StoreLocation.parse(s, place: "game.database") } catch {
            throw config.error("database", error.message)
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

    /// A PostgreSQL database is no file whose bytes the build can compare: its cohort unit
    /// is built every time (`;store=` and a fresh value). Nothing for SQLite or files.
    static func storeSalt(_ store: StoreLocation?) -> String {
        guard case .postgres = store else { return "" }
        var bytes = [UInt8](repeating: 0, count: 8)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        return ";store=" + bytes.map { b in String(b, radix: 16) }.joined()
    }
}
#endif
