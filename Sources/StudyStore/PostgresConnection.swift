import CPostgresRuntime
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The shared store: PostgreSQL through libpq, loaded at run time (docs/store.md)

/// A PostgreSQL connection. Every statement with values goes through `PQexecParams`
/// (values are never written into SQL text); answers come in binary format.
public final class PostgresConnection: StoreConnection {
    public let engine = StoreEngine.postgres
    public let shown: String
    private let conn: UnsafeMutableRawPointer
    public private(set) var inTransaction = false

    /// Connects. `conninfo` is a `postgres://` URI, a key/value string or "" (all from
    /// the `PG*` environment); a failure says what to fix.
    public init(conninfo: String, shown: String) throws(StoreError) {
        self.shown = shown
        var err = [CChar](repeating: 0, count: 512)
        guard dossier_pq_load(&err, err.count) == 0 else {
            throw StoreError(.missingClient, "PostgreSQL support needs libpq, the PostgreSQL client library "
                + "(\(String(decoding: err.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))): "
                + "apt install libpq5")
        }
        // Without a connect timeout libpq waits for as long as the system's TCP does for a
        // host that never answers; PGCONNECT_TIMEOUT, the URL or a service file may set one.
        if environment("PGCONNECT_TIMEOUT") == nil { setenv("PGCONNECT_TIMEOUT", "15", 0) }
        guard let c = dossier_pq_connect(conninfo) else { throw StoreError(.other, "libpq: out of memory") }
        guard dossier_pq_status_ok(c) == 0 else {
            let e = Self.connectError(c, shown: shown)
            dossier_pq_finish(c)
            throw e
        }
        conn = c
    }

    deinit { dossier_pq_finish(conn) }

    /// `host:port` (or the socket folder) of a connection, for messages.
    static func place(_ c: UnsafeMutableRawPointer) -> String {
        let host = String(cString: dossier_pq_host(c)), port = String(cString: dossier_pq_port(c))
        return port.isEmpty ? host : host + ":" + port
    }

    static func connectError(_ c: UnsafeMutableRawPointer, shown: String) -> StoreError {
        let raw = String(cString: dossier_pq_error_message(c))
        let text = raw.lowercased()
        let at = place(c), user = String(cString: dossier_pq_user(c)), db = String(cString: dossier_pq_db(c))
        let detail = firstLine(raw)
        if text.contains("password authentication failed") {
            return StoreError(.authentication, "the PostgreSQL server at \(at) refused the password of user "
                + "\(user): fix the password in PGPASSWORD, ~/.pgpass (or PGPASSFILE) or the service file")
        }
        if text.contains("no password supplied") {
            return StoreError(.authentication, "the PostgreSQL server at \(at) asks for a password for user "
                + "\(user) and none was found: set PGPASSWORD, or add a line to ~/.pgpass (or PGPASSFILE)")
        }
        if text.contains("database \"") && text.contains("does not exist") {
            return StoreError(.missingDatabase, "the database \(db) does not exist on the PostgreSQL server at "
                + "\(at): create it (createdb \(db)) or fix the database name, then run dossier db migrate")
        }
        if text.contains("role \"") && text.contains("does not exist") {
            return StoreError(.authentication, "the PostgreSQL server at \(at) has no user \(user): fix the "
                + "user name (PGUSER or the URL) or create the role")
        }
        let unreachable = ["connection refused", "could not translate host name", "timeout expired", "no route to host",
                           "network is unreachable", "could not connect", "connection timed out", "no such file"]
        if unreachable.contains(where: { text.contains($0) }) {
            return StoreError(.unreachable, "cannot reach the PostgreSQL server at \(at) (\(detail)): check "
                + "that it is running and that the host and port are right (PGHOST and PGPORT, or the URL)")
        }
        return StoreError(.other, "cannot connect to the PostgreSQL server at \(at): \(detail)")
    }

    /// The libpq message's first line, after its "connection to server … failed: " and
    /// without a `FATAL:` prefix (the lines after it are hints).
    static func firstLine(_ raw: String) -> String {
        let lines = raw.split(separator: "\n").map { String($0.drop { $0 == " " || $0 == "\t" }) }
            .filter { !$0.isEmpty }
        guard var line = lines.first else { return "no answer" }
        if let r = line.firstRange(of: "failed: ") { line = String(line[r.upperBound...]) }
        for prefix in ["FATAL:  ", "ERROR:  "] where line.hasPrefix(prefix) {
            line = String(line.dropFirst(prefix.count))
        }
        return line
    }

    /// The error of a failed result (connection lost, conflict, or the server's message).
    private func failure(_ result: UnsafeMutableRawPointer?, _ sql: String) -> StoreError {
        let state = result.map { String(cString: dossier_pq_result_sqlstate($0)) } ?? ""
        var message = result.map { String(cString: dossier_pq_result_message($0)) } ?? ""
        if message.isEmpty { message = Self.firstLine(String(cString: dossier_pq_error_message(conn))) }
        // A protocol error (08P01) on a connection that is still up is a fault of the
        // statement, not a lost connection.
        let lostStates: Set<String> = ["08000", "08003", "08006", "57P01", "57P02", "57P03"]
        if dossier_pq_status_ok(conn) != 0 || lostStates.contains(state) {
            return StoreError(.connectionLost, "the connection to the PostgreSQL server at "
                + "\(Self.place(conn)) was lost (\(message)); nothing of the unfinished transaction was kept: run the "
                + "command again when the server is back", sqlState: state)
        }
        if state == "40001" || state == "40P01" {
            return StoreError(.retryable, "a concurrent transaction conflicted (\(message))", sqlState: state)
        }
        return StoreError(.other, "PostgreSQL: \(message) (SQLSTATE \(state))", sqlState: state)
    }

    private func check(_ result: UnsafeMutableRawPointer?,
                       _ sql: String) throws(StoreError) -> UnsafeMutableRawPointer {
        guard let result, dossier_pq_result_ok(result) != 0 else {
            let e = failure(result, sql)
            dossier_pq_clear(result)
            throw e
        }
        return result
    }

    public func script(_ sql: String) throws(StoreError) {
        dossier_pq_clear(try check(dossier_pq_exec(conn, sql), sql))
    }

    /// Runs `sql` with `params` (text, or binary bytea for `.bytes`); the result.
    private func execute(_ sql: String, _ params: [StoreValue]) throws(StoreError) -> UnsafeMutableRawPointer {
        var buffers: [[CChar]?] = []
        var lengths: [Int32] = [], binary: [Int32] = []
        for p in params {
            switch p {
            case .null: buffers.append(nil); lengths.append(0); binary.append(0)
            case .int(let x): buffers.append(Array("\(x)".utf8CString)); lengths.append(0); binary.append(0)
            case .text(let s):
                if s.utf8.contains(0) {
                    throw StoreError(.other, "a text value holds a NUL character, which PostgreSQL text cannot")
                }
                buffers.append(Array(s.utf8CString)); lengths.append(0); binary.append(0)
            case .bytes(let b):
                buffers.append(b.map { CChar(bitPattern: $0) } + [0]); lengths.append(Int32(b.count)); binary.append(1)
            }
        }
        let result = withPointers(buffers) { values in
            dossier_pq_exec_params(conn, sql, Int32(params.count), values, lengths, binary, 1)
        }
        return try check(result, sql)
    }

    /// Calls `body` with C pointers to every buffer (NULL for nil), valid during the call.
    private func withPointers<R>(_ buffers: [[CChar]?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { $0.deallocate() } }
        for b in buffers {
            guard let b else { pointers.append(nil); continue }
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, b.count))
            p.initialize(from: b, count: b.count)
            owned.append(p)
            pointers.append(UnsafePointer(p))
        }
        return body(pointers)
    }

    @discardableResult
    public func run(_ sql: String, _ params: [StoreValue]) throws(StoreError) -> Int {
        let r = try execute(sql, params)
        defer { dossier_pq_clear(r) }
        return Int(String(cString: dossier_pq_cmd_tuples(r))) ?? 0
    }

    /// Inside a snapshot the answer is read through a cursor, `fetchSize` rows at a time,
    /// so a large table (a build's read of a cohort's events) is never held whole in
    /// memory; elsewhere (small reads of a write transaction) in one piece.
    public func query(_ sql: String, _ params: [StoreValue], _ row: (StoreRow) throws -> Void) throws {
        guard inTransaction && inSnapshot else {
            _ = try rows(of: try execute(sql, params), row)
            return
        }
        cursors += 1
        let name = "dossier_c\(cursors)"
        dossier_pq_clear(try execute("DECLARE \(name) NO SCROLL CURSOR FOR " + sql, params))
        while try rows(of: try execute("FETCH \(Self.fetchSize) FROM \(name)", []), row) == Self.fetchSize {}
        dossier_pq_clear(try execute("CLOSE \(name)", []))
    }

    static let fetchSize = 5000
    private var cursors = 0

    /// Calls `row` for each row of `r` and frees it; the number of rows.
    private func rows(of r: UnsafeMutableRawPointer, _ row: (StoreRow) throws -> Void) throws -> Int {
        defer { dossier_pq_clear(r) }
        let n = Int(dossier_pq_ntuples(r)), fields = Int(dossier_pq_nfields(r))
        let types = (0..<fields).map { dossier_pq_ftype(r, Int32($0)) }
        for i in 0..<n { try row(Row(result: r, index: Int32(i), types: types)) }
        return n
    }

    /// One row of a binary-format answer; integers are big-endian of their type's width.
    struct Row: StoreRow {
        let result: UnsafeMutableRawPointer
        let index: Int32
        let types: [UInt32]
        var columnCount: Int { types.count }
        func isNull(_ c: Int) -> Bool { dossier_pq_is_null(result, index, Int32(c)) != 0 }
        func bytes(_ c: Int) -> [UInt8]? {
            guard !isNull(c) else { return nil }
            let n = Int(dossier_pq_length(result, index, Int32(c)))
            guard n > 0, let p = dossier_pq_value(result, index, Int32(c)) else { return [] }
            return Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(p), count: n))
        }
        func text(_ c: Int) -> String? { bytes(c).map { String(decoding: $0, as: UTF8.self) } }
        func int(_ c: Int) -> Int? {
            guard let b = bytes(c) else { return nil }
            switch types[c] {
            case 20, 23, 21, 16:   // int8, int4, int2, bool
                var v: UInt64 = 0
                for x in b { v = v << 8 | UInt64(x) }
                let bits = b.count * 8
                if bits < 64 && bits > 0 && v >> UInt64(bits - 1) == 1 { v |= ~0 << UInt64(bits) }   // sign
                return Int(Int64(bitPattern: v))
            default:
                return Int(String(decoding: b, as: UTF8.self))
            }
        }
    }

    public func begin(_ kind: TransactionKind) throws(StoreError) {
        try script(kind == .write ? "BEGIN ISOLATION LEVEL SERIALIZABLE"
                                  : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        inTransaction = true
        inSnapshot = kind == .snapshot
    }

    /// Whether the open transaction is a snapshot (``TransactionKind/snapshot``).
    private var inSnapshot = false

    public func commit() throws(StoreError) {
        defer { inTransaction = false }
        do { try script("COMMIT") } catch {
            rollback()
            throw error
        }
    }

    public func rollback() {
        dossier_pq_clear(dossier_pq_exec(conn, "ROLLBACK"))
        inTransaction = false
    }

    public func tableExists(_ name: String) throws(StoreError) -> Bool {
        // pg_tables lists every table, whatever this role may read (information_schema
        // hides the ones it has no right on, which would look like a missing schema).
        try int("SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
                + "AND tablename = $1", [.text(name)]) ?? 0 > 0
    }
}
