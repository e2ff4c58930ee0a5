import CSQLite
import Foundation
import TextBasics

// MARK: - SQLite study database (docs/game-telemetry.md, "SQLite schema")

/// The study server's database: the same telemetry as the JSON Lines format, plus the
/// log of ingested uploads. Every change happens inside one transaction.
public final class StudyDatabase {
    /// Bumped when the schema changes; stored in `meta`.
    public static let schemaVersion = 2

    public static let schema = """
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS surveys(
        player TEXT PRIMARY KEY,
        complete INTEGER NOT NULL CHECK(complete IN (0,1)),
        diagnosed INTEGER CHECK(diagnosed IN (0,1)),
        medicated INTEGER CHECK(medicated IN (0,1)),
        age INTEGER,
        gender TEXT);
    CREATE TABLE IF NOT EXISTS sessions(
        player TEXT NOT NULL,
        session INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        score INTEGER NOT NULL,
        PRIMARY KEY(player, session));
    CREATE TABLE IF NOT EXISTS events(
        player TEXT NOT NULL,
        session INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK(kind IN ('obstacle','tap','jump','collision','volume','error')),
        seq INTEGER NOT NULL,
        t_ms INTEGER NOT NULL,
        interval_ms INTEGER,
        obstacle_kind TEXT,
        volume_on INTEGER,
        message TEXT,
        PRIMARY KEY(player, session, kind, seq));
    CREATE TABLE IF NOT EXISTS uploads(
        content_sha256 TEXT PRIMARY KEY,
        player TEXT NOT NULL,
        sessions INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS devices(
        player TEXT PRIMARY KEY,
        signing_key TEXT NOT NULL,
        result_key TEXT);
    """

    private var db: OpaquePointer?
    public let path: String

    /// Opens (creating if asked) the database at `path` and makes sure the schema exists.
    public init(path: String, create: Bool = true) throws(GameError) {
        self.path = path
        if !create && !FileManager.default.fileExists(atPath: path) {
            throw GameError(file: path, "database not found")
        }
        if create { try Self.checkPlace(for: path) }
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
            let m = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db); db = nil
            throw GameError(file: path, "cannot open the database: \(m)")
        }
        sqlite3_busy_timeout(db, 10_000)
        // WAL: readers see a consistent snapshot inside their read transaction while ingest writes.
        try exec("PRAGMA journal_mode=WAL;")
        try exec("PRAGMA foreign_keys=ON;")
        try transaction { () throws(GameError) in
            try exec(Self.schema)
            let v = try queryInt("SELECT value FROM meta WHERE key='schema_version'")
            if let v, v != Self.schemaVersion && v != 1 {
                throw GameError(file: path, "schema version \(v) is not supported (expected \(Self.schemaVersion))")
            }
            // Version 1 lacked only the `devices` table, which the schema above just created.
            if v != Self.schemaVersion {
                try exec("INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '\(Self.schemaVersion)')")
            }
        }
    }

    deinit { sqlite3_close(db) }

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
            throw GameError(file: path, "cannot create the database: the folder \(folder) does not exist (create it first)")
        }
        guard isFolder else { throw GameError(file: path, "cannot create the database: \(folder) is a file, not a folder") }
        guard fm.isWritableFile(atPath: folder) else {
            throw GameError(file: path, "cannot create the database: the folder \(folder) is not writable")
        }
    }

    // MARK: Low-level

    func fail(_ what: String) -> GameError {
        GameError(file: path, "\(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    func exec(_ sql: String) throws(GameError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw fail("SQL failed") }
    }

    final class Statement {
        var stmt: OpaquePointer?
        init(_ stmt: OpaquePointer?) { self.stmt = stmt }
        deinit { sqlite3_finalize(stmt) }
        static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        func bind(_ values: [Any?]) {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
            for (i, v) in values.enumerated() {
                let idx = Int32(i + 1)
                switch v {
                case nil: sqlite3_bind_null(stmt, idx)
                case let x as Int: sqlite3_bind_int64(stmt, idx, Int64(x))
                case let x as Bool: sqlite3_bind_int64(stmt, idx, x ? 1 : 0)
                case let x as String:
                    // Explicit byte length: text with NUL characters is stored whole.
                    let bytes = Array(x.utf8)
                    if bytes.isEmpty { sqlite3_bind_text(stmt, idx, "", 0, Statement.transient); continue }
                    bytes.withUnsafeBufferPointer { p in
                        p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, bytes.count)) {
                            _ = sqlite3_bind_text(stmt, idx, $0, Int32(bytes.count), Statement.transient)
                        }
                    }
                default: sqlite3_bind_null(stmt, idx)
                }
            }
        }
        func int(_ c: Int32) -> Int? { sqlite3_column_type(stmt, c) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(stmt, c)) }
        func text(_ c: Int32) -> String? {
            guard sqlite3_column_type(stmt, c) != SQLITE_NULL else { return nil }
            guard let p = sqlite3_column_text(stmt, c) else { return "" }
            let n = Int(sqlite3_column_bytes(stmt, c))
            return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        }
    }

    func prepare(_ sql: String) throws(GameError) -> Statement {
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else { throw fail("cannot prepare SQL") }
        return Statement(s)
    }

    /// Runs `sql` once with `values`; returns rows via `row`.
    func run(_ st: Statement, _ values: [Any?], row: ((Statement) throws(GameError) -> Void)? = nil) throws(GameError) {
        st.bind(values)
        while true {
            let rc = sqlite3_step(st.stmt)
            if rc == SQLITE_DONE { return }
            if rc == SQLITE_ROW { try row?(st); continue }
            throw fail("SQL step failed")
        }
    }

    func queryInt(_ sql: String, _ values: [Any?] = []) throws(GameError) -> Int? {
        let st = try prepare(sql)
        var out: Int?
        try run(st, values) { (s) throws(GameError) in out = s.int(0) ?? Int(s.text(0) ?? "") }
        return out
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; any error rolls everything back.
    public func transaction<T>(_ body: () throws(GameError) -> T) throws(GameError) -> T {
        try inTransaction("BEGIN IMMEDIATE;", body)
    }

    /// Runs `body` in a read transaction (`BEGIN DEFERRED`): every SELECT inside sees the
    /// same snapshot of the WAL database, whatever ingest commits meanwhile. Inside an
    /// open transaction it simply runs `body`.
    public func read<T>(_ body: () throws(GameError) -> T) throws(GameError) -> T {
        try inTransaction("BEGIN DEFERRED;", body)
    }

    private func inTransaction<T>(_ begin: String, _ body: () throws(GameError) -> T) throws(GameError) -> T {
        if sqlite3_get_autocommit(db) == 0 { return try body() }
        try exec(begin)
        do {
            let v = try body()
            try exec("COMMIT;")
            return v
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK;", nil, nil, nil)
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
                if s.complete && old != s { throw GameError(file: path, "player \(p.id): a different complete survey is already stored") }
            } else {
                let st = try prepare("INSERT OR REPLACE INTO surveys(player, complete, diagnosed, medicated, age, gender) VALUES(?,?,?,?,?,?)")
                try run(st, [p.id, s.complete, s.diagnosed, s.medicated, s.age, s.gender])
            }
        }
        var added = 0
        let insSession = try prepare("INSERT INTO sessions(player, session, start_ms, end_ms, score) VALUES(?,?,?,?,?)")
        let insEvent = try prepare("INSERT INTO events(player, session, kind, seq, t_ms, interval_ms, obstacle_kind, volume_on, message) VALUES(?,?,?,?,?,?,?,?,?)")
        for s in p.sessions {
            if let old = existing?.sessions.first(where: { $0.index == s.index }) {
                if old != s { throw GameError(file: path, "player \(p.id) session \(s.index): different data is already stored") }
                continue
            }
            try run(insSession, [p.id, s.index, s.start, s.end, s.score])
            for (i, o) in s.obstacles.enumerated() { try run(insEvent, [p.id, s.index, "obstacle", i, o.t, o.interval, o.kind, nil, nil]) }
            for (kind, times) in [("tap", s.taps), ("jump", s.jumps), ("collision", s.collisions)] {
                for (i, t) in times.enumerated() { try run(insEvent, [p.id, s.index, kind, i, t, nil, nil, nil, nil]) }
            }
            for (i, v) in s.volume.enumerated() { try run(insEvent, [p.id, s.index, "volume", i, v.t, nil, nil, v.on, nil]) }
            for (i, e) in s.errors.enumerated() { try run(insEvent, [p.id, s.index, "error", i, e.t, nil, nil, nil, e.message]) }
            added += 1
        }
        return added
    }

    /// Writes a whole cohort in one transaction (used by `simulate --db` and tests).
    public func store(cohort: Cohort) throws(GameError) {
        try transaction { () throws(GameError) in
            for p in cohort.players { try store(p) }
        }
    }

    /// Whether an upload with this content hash was already ingested.
    public func hasUpload(_ sha256: String) throws(GameError) -> Bool {
        try queryInt("SELECT COUNT(*) FROM uploads WHERE content_sha256 = ?", [sha256]) ?? 0 > 0
    }

    public func recordUpload(_ sha256: String, player: String, sessions: Int) throws(GameError) {
        let st = try prepare("INSERT INTO uploads(content_sha256, player, sessions) VALUES(?,?,?)")
        try run(st, [sha256, player, sessions])
    }

    public func uploadCount() throws(GameError) -> Int { try queryInt("SELECT COUNT(*) FROM uploads") ?? 0 }

    /// The device signing key pinned for a player (base64 of the 32-byte Ed25519 public key), if any.
    public func pinnedKey(_ player: String) throws(GameError) -> String? {
        var out: String?
        try run(try prepare("SELECT signing_key FROM devices WHERE player = ?"), [player]) { (s) throws(GameError) in out = s.text(0) }
        return out
    }

    /// Pins `signingKey` for `player` on first use and records the latest result key.
    public func pin(_ player: String, signingKey: String, resultKey: String) throws(GameError) {
        try run(try prepare("INSERT INTO devices(player, signing_key, result_key) VALUES(?,?,?) "
                            + "ON CONFLICT(player) DO UPDATE SET result_key = excluded.result_key"),
                [player, signingKey, resultKey])
    }

    /// Every player's latest result key (base64), for the encrypted per-player results.
    public func resultKeys() throws(GameError) -> [String: String] {
        var out: [String: String] = [:]
        try run(try prepare("SELECT player, result_key FROM devices WHERE result_key IS NOT NULL"), []) { (s) throws(GameError) in
            if let id = s.text(0), let k = s.text(1) { out[id] = k }
        }
        return out
    }

    // MARK: Reading

    /// One player, or nil when nothing is stored for that id.
    public func readPlayer(_ id: String) throws(GameError) -> Player? {
        let c = try readCohort(only: id)
        return c.players.first
    }

    /// Every stored player (sorted by id, sessions by index), validated like the JSON Lines reader.
    public func readCohort() throws(GameError) -> Cohort { try readCohort(only: nil) }

    private func readCohort(only: String?) throws(GameError) -> Cohort {
        try read { () throws(GameError) -> Cohort in try readCohortInTransaction(only: only) }
    }

    private func readCohortInTransaction(only: String?) throws(GameError) -> Cohort {
        let filter = only == nil ? "" : " WHERE player = ?"
        let args: [Any?] = only.map { [$0] } ?? []
        var surveys: [String: Survey] = [:]
        try run(try prepare("SELECT player, complete, diagnosed, medicated, age, gender FROM surveys" + filter), args) { (s) throws(GameError) in
            let id = s.text(0) ?? ""
            let sv = Survey(complete: s.int(1) == 1, diagnosed: s.int(2).map { $0 == 1 }, medicated: s.int(3).map { $0 == 1 },
                            age: s.int(4), gender: s.text(5))
            if let p = surveyProblem(sv) { throw GameError(file: self.path, "player \(id): \(p)") }
            surveys[id] = sv
        }
        var sessions: [String: [Int: Session]] = [:]
        try run(try prepare("SELECT player, session, start_ms, end_ms, score FROM sessions" + filter), args) { (s) throws(GameError) in
            let id = s.text(0) ?? ""
            let idx = s.int(1) ?? 0
            sessions[id, default: [:]][idx] = Session(index: idx, start: s.int(2) ?? 0, end: s.int(3) ?? 0, score: s.int(4) ?? 0)
        }
        let sql = "SELECT player, session, kind, t_ms, interval_ms, obstacle_kind, volume_on, message FROM events" + filter
            + " ORDER BY player, session, kind, seq"
        try run(try prepare(sql), args) { (s) throws(GameError) in
            let id = s.text(0) ?? "", idx = s.int(1) ?? 0, t = s.int(3) ?? 0
            guard sessions[id]?[idx] != nil else { throw GameError(file: self.path, "player \(id): events for session \(idx), which is not stored") }
            switch s.text(2) ?? "" {
            case "obstacle": sessions[id]![idx]!.obstacles.append(Obstacle(t: t, interval: s.int(4) ?? 0, kind: s.text(5) ?? ""))
            case "tap": sessions[id]![idx]!.taps.append(t)
            case "jump": sessions[id]![idx]!.jumps.append(t)
            case "collision": sessions[id]![idx]!.collisions.append(t)
            case "volume": sessions[id]![idx]!.volume.append(VolumeToggle(t: t, on: s.int(6) == 1))
            default: sessions[id]![idx]!.errors.append(ErrorLog(t: t, message: s.text(7) ?? ""))
            }
        }
        var players: [Player] = []
        for id in Set(surveys.keys).union(sessions.keys) {
            guard isValidPlayerID(id) else { throw GameError(file: path, "a stored player id is not valid") }
            let ss = (sessions[id] ?? [:]).values.sorted { $0.index < $1.index }
            for s in ss { if let p = sessionProblem(s) { throw GameError(file: path, "player \(id): \(p)") } }
            players.append(Player(id: id, survey: surveys[id], sessions: ss))
        }
        return Cohort(players: players)
    }
}
