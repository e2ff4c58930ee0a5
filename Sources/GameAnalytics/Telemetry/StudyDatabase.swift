#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StudyStore
import TextBasics

// MARK: - The study database (docs/game-telemetry.md, "The study database"; docs/store.md)

/// The study server's database — a SQLite file or a PostgreSQL database — holding the
/// same telemetry as the JSON Lines format, plus the log of ingested uploads. Every
/// change happens inside one transaction; on PostgreSQL a transaction that conflicts with
/// another process's is run again (``transaction(_:)``).
public final class StudyDatabase {
    /// The schema version this binary writes (``StudySchema/latest``).
    public static var schemaVersion: Int { StudySchema.latest }

    let conn: StoreConnection
    /// The database as messages name it (a path, or a URL without password).
    public let path: String
    public let location: StoreLocation
    public var engine: StoreEngine { conn.engine }

    /// Opens the database `path` names — a SQLite path or a `postgres:` location
    /// (``StoreLocation``) — creating a SQLite file when `create`, and brings its schema
    /// to the current version.
    public convenience init(path: String, create: Bool = true) throws(GameError) {
        let location: StoreLocation
        do { location = try StoreLocation.parse(path, place: "the database argument") } catch {
            throw GameError(error.message)
        }
        try self.init(location: location, create: create)
    }

    public init(location: StoreLocation, create: Bool = true) throws(GameError) {
        self.location = location
        path = location.shown
        if case .sqlite(let p) = location {
            if !create && !FileManager.default.fileExists(atPath: p) { throw GameError(file: p, "database not found") }
            if create { try Self.checkPlace(for: p) }
        }
        do {
            conn = try openStore(location, create: create)
            try StudySchema.migrate(conn)
        } catch {
            throw GameError(file: location.shown, error.message, storeFailure: true)
        }
    }

    /// Where a database may be created (docs/game-telemetry.md, "The study database"): an
    /// existing file is opened as it is; a new one only in a folder that exists and may be
    /// written. A missing folder is named, not made — it is most likely a mistyped path.
    static func checkPlace(for path: String) throws(GameError) {
        let fm = FileManager.default
        var isFolder = false
        if fm.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder { throw GameError(file: path, "is a folder, not a database file") }
            return
        }
        let parent = PathText.deletingLastComponent(path)
        let folder = parent.isEmpty ? "." : parent
        guard fm.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw GameError(file: path,
                            "cannot create the database: the folder \(folder) does not exist (create it first)")
        }
        guard isFolder else {
            throw GameError(file: path, "cannot create the database: \(folder) is a file, not a folder")
        }
        guard fm.isWritableFile(atPath: folder) else {
            throw GameError(file: path, "cannot create the database: the folder \(folder) is not writable")
        }
    }

    // MARK: Low-level

    func failure(_ e: Error) -> GameError {
        if let g = e as? GameError { return g }
        if let s = e as? StoreError {
            return GameError(file: path, s.message, storeFailure: true, retryable: s.kind == .retryable)
        }
        return GameError(file: path, "\(e)")
    }

    /// Runs a script of statements without parameters (tests, schema work).
    func exec(_ sql: String) throws(GameError) {
        do { try conn.script(sql) } catch { throw failure(error) }
    }

    /// Runs one statement with parameters; the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [StoreValue]) throws(GameError) -> Int {
        do { return try conn.run(sql, values) } catch { throw failure(error) }
    }

    /// Calls `row` for each row of the query.
    func query(_ sql: String, _ values: [StoreValue] = [],
               _ row: (StoreRow) throws(GameError) -> Void) throws(GameError) {
        do {
            try conn.query(sql, values) { r in try row(r) }
        } catch { throw failure(error) }
    }

    func queryInt(_ sql: String, _ values: [StoreValue] = []) throws(GameError) -> Int? {
        do { return try conn.int(sql, values) } catch { throw failure(error) }
    }

    /// Free text that may hold any character: TEXT on SQLite, bytes on PostgreSQL.
    func freeText(_ s: String?) -> StoreValue {
        guard let s else { return .null }
        return conn.engine == .postgres ? .bytes(Array(s.utf8)) : .text(s)
    }

    /// Runs `body` in one write transaction; any error rolls everything back. On
    /// PostgreSQL (SERIALIZABLE) a conflict with a concurrent writer runs `body` again,
    /// up to 20 times. Inside an open transaction it simply runs `body`.
    public func transaction<T>(_ body: () throws(GameError) -> T) throws(GameError) -> T {
        if conn.inTransaction { return try body() }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try inTransaction(.write, body)
            } catch let e where e.retryable && attempt < 20 {
                continue
            }
        }
    }

    /// Runs `body` in one read snapshot (SQLite WAL read transaction; PostgreSQL
    /// REPEATABLE READ READ ONLY): every query inside sees the same data, whatever other
    /// processes commit meanwhile. Inside an open transaction it simply runs `body`.
    public func read<T>(_ body: () throws(GameError) -> T) throws(GameError) -> T {
        if conn.inTransaction { return try body() }
        return try inTransaction(.snapshot, body)
    }

    private func inTransaction<T>(_ kind: TransactionKind, _ body: () throws(GameError) -> T) throws(GameError) -> T {
        do { try conn.begin(kind) } catch { throw failure(error) }
        do throws(GameError) {
            let v = try body()
            if kind == .write { PausePoint.reached("commit") }
            do { try conn.commit() } catch { throw failure(error) }
            return v
        } catch {
            conn.rollback()
            throw error
        }
    }

    // MARK: Writing

    /// Stores a player's survey and sessions (inside the caller's transaction).
    /// A survey replaces a stored *incomplete* one; a session identical to a stored one is
    /// skipped; any other difference from stored data is a conflict (nothing is changed).
    /// Returns the number of sessions newly stored.
    @discardableResult
    public func store(_ p: Player) throws(GameError) -> Int {
        let existing = try readPlayer(p.id)
        if let s = p.survey {
            if let old = existing?.survey, old.complete {
                // An incomplete survey after a complete one is a stale draft: kept out, not an error.
                if s.complete && old != s {
                    throw GameError(file: path, "player \(p.id): a different complete survey is already stored")
                }
            } else {
                try run("INSERT INTO surveys(player, complete, diagnosed, medicated, age, gender) "
                        + "VALUES($1,$2,$3,$4,$5,$6) ON CONFLICT(player) DO UPDATE SET complete = excluded.complete, "
                        + "diagnosed = excluded.diagnosed, medicated = excluded.medicated, age = excluded.age, "
                        + "gender = excluded.gender",
                        [.text(p.id), StoreValue(s.complete), StoreValue(s.diagnosed), StoreValue(s.medicated),
                         StoreValue(s.age), StoreValue(s.gender)])
            }
        }
        var added = 0
        var events: [[StoreValue]] = []
        for s in p.sessions {
            if let old = existing?.sessions.first(where: { $0.index == s.index }) {
                if old != s {
                    throw GameError(file: path, "player \(p.id) session \(s.index): different data is already stored")
                }
                continue
            }
            try run("INSERT INTO sessions(player, session, start_ms, end_ms, score) VALUES($1,$2,$3,$4,$5)",
                    [.text(p.id), .int(s.index), .int(s.start), .int(s.end), .int(s.score)])
            let id = StoreValue.text(p.id), si = StoreValue.int(s.index)
            for (i, o) in s.obstacles.enumerated() {
                events.append([id, si, .text("obstacle"), .int(i), .int(o.t), .int(o.interval), freeText(o.kind),
                               .null, .null])
            }
            for (kind, times) in [("tap", s.taps), ("jump", s.jumps), ("collision", s.collisions)] {
                for (i, t) in times.enumerated() {
                    events.append([id, si, .text(kind), .int(i), .int(t), .null, .null, .null, .null])
                }
            }
            for (i, v) in s.volume.enumerated() {
                events.append([id, si, .text("volume"), .int(i), .int(v.t), .null, .null, StoreValue(v.on), .null])
            }
            for (i, e) in s.errors.enumerated() {
                events.append([id, si, .text("error"), .int(i), .int(e.t), .null, .null, .null, freeText(e.message)])
            }
            added += 1
        }
        try insertRows("events", ["player", "session", "kind", "seq", "t_ms", "interval_ms", "obstacle_kind",
                                  "volume_on", "message"], events)
        return added
    }

    func insertRows(_ table: String, _ columns: [String], _ rows: [[StoreValue]]) throws(GameError) {
        do { try conn.insertRows(table, columns, rows) } catch { throw failure(error) }
    }

    /// Writes a whole cohort in one transaction (used by `simulate --db` and tests).
    public func store(cohort: Cohort) throws(GameError) {
        try transaction { () throws(GameError) in
            for p in cohort.players { try store(p) }
        }
    }

    /// Whether an upload with this content hash was already ingested.
    public func hasUpload(_ sha256: String) throws(GameError) -> Bool {
        try queryInt("SELECT COUNT(*) FROM uploads WHERE content_sha256 = $1", [.text(sha256)]) ?? 0 > 0
    }

    /// Claims an upload's content hash inside the caller's transaction: false when it is
    /// already stored (by this process or another), so the upload is a duplicate.
    public func claimUpload(_ sha256: String, player: String) throws(GameError) -> Bool {
        try run("INSERT INTO uploads(content_sha256, player, sessions) VALUES($1,$2,0) ON CONFLICT DO NOTHING",
                [.text(sha256), .text(player)]) == 1
    }

    public func recordUpload(_ sha256: String, player: String, sessions: Int) throws(GameError) {
        try run("INSERT INTO uploads(content_sha256, player, sessions) VALUES($1,$2,$3) "
                + "ON CONFLICT(content_sha256) DO UPDATE SET sessions = excluded.sessions",
                [.text(sha256), .text(player), .int(sessions)])
    }

    public func uploadCount() throws(GameError) -> Int { try queryInt("SELECT COUNT(*) FROM uploads") ?? 0 }

    /// The device signing key pinned for a player (base64 of the 32-byte Ed25519 public key), if any.
    public func pinnedKey(_ player: String) throws(GameError) -> String? {
        var out: String?
        try query("SELECT signing_key FROM devices WHERE player = $1", [.text(player)]) { (s) throws(GameError) in
            out = s.text(0)
        }
        return out
    }

    /// Pins `signingKey` for `player` on first use and records the latest result key.
    public func pin(_ player: String, signingKey: String, resultKey: String) throws(GameError) {
        try run("INSERT INTO devices(player, signing_key, result_key) VALUES($1,$2,$3) "
                + "ON CONFLICT(player) DO UPDATE SET result_key = excluded.result_key",
                [.text(player), .text(signingKey), .text(resultKey)])
    }

    /// Every player's latest result key (base64), for the encrypted per-player results.
    public func resultKeys() throws(GameError) -> [String: String] {
        var out: [String: String] = [:]
        try query("SELECT player, result_key FROM devices WHERE result_key IS NOT NULL") { (s) throws(GameError) in
            if let id = s.text(0), let k = s.text(1) { out[id] = k }
        }
        return out
    }
}
