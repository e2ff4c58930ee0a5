import CSQLite
import TextBasics
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The embedded store: one SQLite file (WAL), nothing to install

/// A SQLite connection. Statements are prepared once and kept (keyed by their text).
public final class SQLiteConnection: StoreConnection {
    public let engine = StoreEngine.sqlite
    public let shown: String
    public let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    public private(set) var inTransaction = false

    /// Opens `path` (creating the file when `create`), in WAL mode with foreign keys on.
    public init(path: String, create: Bool) throws(StoreError) {
        self.path = path
        shown = path
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
            let m = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db); db = nil
            throw StoreError(.other, "cannot open the database: \(m)")
        }
        sqlite3_busy_timeout(db, 10_000)
        try script("PRAGMA foreign_keys=ON;")
        // WAL: readers see a consistent snapshot inside their read transaction while ingest
        // writes. Not for a database of a newer schema, which is refused and left untouched.
        if (try? StudySchema.version(self)).flatMap({ $0 }).map({ $0 <= StudySchema.latest }) ?? true {
            try script("PRAGMA journal_mode=WAL;")
        }
    }

    deinit {
        for s in statements.values { sqlite3_finalize(s) }
        sqlite3_close(db)
    }

    func fail(_ what: String) -> StoreError {
        let code = sqlite3_errcode(db)
        let kind: StoreError.Kind = code == SQLITE_BUSY || code == SQLITE_LOCKED ? .retryable : .other
        var message = "\(what): \(String(cString: sqlite3_errmsg(db)))"
        // A disk error in plain words (a full disk, a file too large, a read-only folder):
        // SQLite's "disk I/O error" alone does not say what to do.
        if [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY].contains(code & 0xFF),
           case let os = sqlite3_system_errno(db), os != 0, let advice = ErrnoAdvice.advice(os) {
            message += " (\(advice))"
        }
        return StoreError(kind, message)
    }

    public func script(_ sql: String) throws(StoreError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw fail("SQL failed") }
    }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let s = statements[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return s
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK, let s else { throw fail("cannot prepare SQL") }
        statements[sql] = s
        return s
    }

    private static let emptyText: [CChar] = [0]
    private static var empty: UnsafePointer<CChar> { emptyText.withUnsafeBufferPointer { $0.baseAddress! } }
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds `params` to `$1`, `$2`, … by name (a parameter may appear more than once).
    private func bind(_ s: OpaquePointer, _ params: [StoreValue]) throws(StoreError) {
        for (i, v) in params.enumerated() {
            let idx = sqlite3_bind_parameter_index(s, "$\(i + 1)")
            guard idx > 0 else { continue }
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(s, idx)
            case .int(let x): rc = sqlite3_bind_int64(s, idx, Int64(x))
            case .text(let x):
                // Explicit byte length: text with NUL characters is stored whole.
                let bytes = Array(x.utf8)
                rc = bytes.withUnsafeBufferPointer { p in
                    p.withMemoryRebound(to: CChar.self) {
                        sqlite3_bind_text(s, idx, $0.baseAddress ?? Self.empty, Int32($0.count), Self.transient)
                    }
                }
            case .bytes(let b):
                rc = b.withUnsafeBytes { p in
                    sqlite3_bind_blob(s, idx, p.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(b.count),
                                      Self.transient)
                }
            }
            guard rc == SQLITE_OK else { throw fail("cannot bind a parameter") }
        }
    }

    @discardableResult
    public func run(_ sql: String, _ params: [StoreValue]) throws(StoreError) -> Int {
        let s = try prepared(sql)
        try bind(s, params)
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            if rc == SQLITE_ROW { continue }
            sqlite3_reset(s)
            throw fail("SQL step failed")
        }
        sqlite3_reset(s)
        return Int(sqlite3_changes(db))
    }

    public func query(_ sql: String, _ params: [StoreValue], _ row: (StoreRow) throws -> Void) throws {
        let s = try prepared(sql)
        defer { sqlite3_reset(s) }
        try bind(s, params)
        let r = Row(stmt: s)
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return }
            if rc == SQLITE_ROW { try row(r); continue }
            throw fail("SQL step failed")
        }
    }

    struct Row: StoreRow {
        let stmt: OpaquePointer
        var columnCount: Int { Int(sqlite3_column_count(stmt)) }
        func isNull(_ c: Int) -> Bool { sqlite3_column_type(stmt, Int32(c)) == SQLITE_NULL }
        func int(_ c: Int) -> Int? {
            switch sqlite3_column_type(stmt, Int32(c)) {
            case SQLITE_NULL: return nil
            case SQLITE_INTEGER: return Int(sqlite3_column_int64(stmt, Int32(c)))
            case SQLITE_TEXT: return text(c).flatMap { Int($0) }
            default: return nil
            }
        }
        func text(_ c: Int) -> String? { bytes(c).map { String(decoding: $0, as: UTF8.self) } }
        func bytes(_ c: Int) -> [UInt8]? {
            let c32 = Int32(c)
            switch sqlite3_column_type(stmt, c32) {
            case SQLITE_NULL: return nil
            case SQLITE_BLOB:
                let n = Int(sqlite3_column_bytes(stmt, c32))
                guard n > 0, let p = sqlite3_column_blob(stmt, c32) else { return [] }
                return Array(UnsafeRawBufferPointer(start: p, count: n))
            default:
                guard let p = sqlite3_column_text(stmt, c32) else { return [] }
                let n = Int(sqlite3_column_bytes(stmt, c32))
                return Array(UnsafeBufferPointer(start: p, count: n))
            }
        }
    }

    public func begin(_ kind: TransactionKind) throws(StoreError) {
        try script(kind == .write ? "BEGIN IMMEDIATE;" : "BEGIN DEFERRED;")
        inTransaction = true
    }

    public func commit() throws(StoreError) {
        do { try script("COMMIT;") } catch {
            rollback()
            throw error
        }
        inTransaction = false
    }

    public func rollback() {
        _ = sqlite3_exec(db, "ROLLBACK;", nil, nil, nil)
        inTransaction = false
    }

    public func tableExists(_ name: String) throws(StoreError) -> Bool {
        try int("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = $1", [.text(name)]) ?? 0 > 0
    }
}
