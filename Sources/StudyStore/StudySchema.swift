// MARK: - The study database's schema and its versions (docs/store.md, "Schema versions")

/// The tables of a study database, the same on both engines but for type names
/// (``StoreConnection/integerType``, ``StoreConnection/bytesType``), and the steps from
/// each older version. The version is the `schema_version` row of `meta`.
///
/// - 1: surveys, sessions, events, uploads (and meta);
/// - 2: + devices (pinned signing keys, result keys);
/// - 3: + privacy_key, privacy_ledger (with `seq`, its order), recall_logs, recall_devices.
public enum StudySchema {
    public static let latest = 3

    /// Every table, in the order `dossier db copy` copies them (each with the columns it
    /// copies, in order).
    public static let tables: [(name: String, columns: [String])] = [
        ("meta", ["key", "value"]),
        ("surveys", ["player", "complete", "diagnosed", "medicated", "age", "gender"]),
        ("sessions", ["player", "session", "start_ms", "end_ms", "score"]),
        ("events", ["player", "session", "kind", "seq", "t_ms", "interval_ms", "obstacle_kind", "volume_on",
                    "message"]),
        ("uploads", ["content_sha256", "player", "sessions"]),
        ("devices", ["player", "signing_key", "result_key"]),
        ("privacy_key", ["id", "key", "database_id", "lifetime_milli"]),
        ("privacy_ledger", ["release", "epsilon", "delta", "section", "published", "seq"]),
        ("recall_logs", ["name", "bytes", "sha256"]),
        ("recall_devices", ["device", "signing_key"]),
    ]

    /// The whole schema of ``latest`` for `c`'s engine. Free text that may hold any
    /// character (an obstacle kind, an error message) is bytes on PostgreSQL, whose text
    /// cannot hold U+0000; SQLite keeps it as TEXT with its full length.
    public static func ddl(_ c: StoreConnection) -> String {
        let I = c.integerType, B = c.bytesType
        let freeText = c.engine == .postgres ? "BYTEA" : "TEXT"
        return """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS surveys(
            player TEXT PRIMARY KEY,
            complete \(I) NOT NULL CHECK(complete IN (0,1)),
            diagnosed \(I) CHECK(diagnosed IN (0,1)),
            medicated \(I) CHECK(medicated IN (0,1)),
            age \(I),
            gender TEXT);
        CREATE TABLE IF NOT EXISTS sessions(
            player TEXT NOT NULL,
            session \(I) NOT NULL,
            start_ms \(I) NOT NULL,
            end_ms \(I) NOT NULL,
            score \(I) NOT NULL,
            PRIMARY KEY(player, session));
        CREATE TABLE IF NOT EXISTS events(
            player TEXT NOT NULL,
            session \(I) NOT NULL,
            kind TEXT NOT NULL CHECK(kind IN ('obstacle','tap','jump','collision','volume','error')),
            seq \(I) NOT NULL,
            t_ms \(I) NOT NULL,
            interval_ms \(I),
            obstacle_kind \(freeText),
            volume_on \(I),
            message \(freeText),
            PRIMARY KEY(player, session, kind, seq));
        CREATE TABLE IF NOT EXISTS uploads(
            content_sha256 TEXT PRIMARY KEY,
            player TEXT NOT NULL,
            sessions \(I) NOT NULL);
        CREATE TABLE IF NOT EXISTS devices(
            player TEXT PRIMARY KEY,
            signing_key TEXT NOT NULL,
            result_key TEXT);
        CREATE TABLE IF NOT EXISTS privacy_key(id \(I) PRIMARY KEY CHECK(id = 1), key TEXT NOT NULL,
            database_id TEXT NOT NULL, lifetime_milli \(I) NOT NULL);
        CREATE TABLE IF NOT EXISTS privacy_ledger(release TEXT PRIMARY KEY, epsilon TEXT NOT NULL,
            delta TEXT NOT NULL, section TEXT NOT NULL, published TEXT NOT NULL, seq \(I));
        CREATE TABLE IF NOT EXISTS recall_logs(name TEXT PRIMARY KEY, bytes \(B) NOT NULL,
            sha256 TEXT NOT NULL UNIQUE);
        CREATE TABLE IF NOT EXISTS recall_devices(device TEXT PRIMARY KEY, signing_key TEXT NOT NULL);
        """
    }

    /// The stored version: nil when the database holds no `meta` table (a new, empty one).
    public static func version(_ c: StoreConnection) throws(StoreError) -> Int? {
        guard try c.tableExists("meta") else { return nil }
        return try c.int("SELECT value FROM meta WHERE key = 'schema_version'") ?? 0
    }

    /// Refuses a database of a newer version than ``latest``.
    public static func checkNotNewer(_ version: Int?) throws(StoreError) {
        if let version, version > latest {
            throw StoreError(.newerSchema, "the database has schema version \(version), newer than this dossier knows "
                + "(\(latest)): use a newer dossier (the data was written by one), or restore a copy made for this one")
        }
    }

    /// Creates or upgrades the schema to ``latest`` in one transaction; (from, to).
    /// Two processes migrating at once agree: the second finds the work done.
    @discardableResult
    public static func migrate(_ c: StoreConnection) throws(StoreError) -> (from: Int?, to: Int) {
        let seen = try version(c)
        try checkNotNewer(seen)
        if seen == latest { return (seen, latest) }
        // PostgreSQL: READ COMMITTED with a lock on the migration, so the second of two
        // processes sees the first one's tables once it has the lock.
        if c.engine == .postgres {
            try c.script("BEGIN")
        } else {
            try c.begin(.write)
        }
        do {
            if c.engine == .postgres { try c.script("SELECT pg_advisory_xact_lock(7236411305822471)") }
            let from = try version(c)
            try checkNotNewer(from)
            if from != latest {
                try c.script(ddl(c))
                if try !hasColumn(c, "privacy_ledger", "seq") { try addLedgerOrder(c) }
                try c.run("INSERT INTO meta(key, value) VALUES('schema_version', $1) "
                          + "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [.text("\(latest)")])
            }
            if c.engine == .postgres { try c.script("COMMIT") } else { try c.commit() }
            return (from, latest)
        } catch {
            c.rollback()
            throw error
        }
    }

    static func hasColumn(_ c: StoreConnection, _ table: String, _ column: String) throws(StoreError) -> Bool {
        let sql = c.engine == .sqlite
            ? "SELECT COUNT(*) FROM pragma_table_info($1) WHERE name = $2"
            : "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = current_schema() "
                + "AND table_name = $1 AND column_name = $2"
        return try c.int(sql, [.text(table), .text(column)]) ?? 0 > 0
    }

    /// A version-2 database whose ledger was made before `seq` existed: `seq` becomes the
    /// rows' insertion order — SQLite's rowid; on PostgreSQL the rows' physical order
    /// (ctid), which is insertion order for a table only ever appended to, as the ledger is.
    static func addLedgerOrder(_ c: StoreConnection) throws(StoreError) {
        if c.engine == .sqlite {
            try c.script("ALTER TABLE privacy_ledger ADD COLUMN seq INTEGER; UPDATE privacy_ledger SET seq = rowid;")
        } else {
            try c.script("ALTER TABLE privacy_ledger ADD COLUMN seq BIGINT; "
                + "UPDATE privacy_ledger AS l SET seq = o.n FROM (SELECT ctid AS at, "
                + "row_number() OVER (ORDER BY ctid) AS n FROM privacy_ledger) AS o WHERE l.ctid = o.at;")
        }
    }
}
