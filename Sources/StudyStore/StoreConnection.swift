// MARK: - One connection to a study store: SQLite (embedded) or PostgreSQL (shared)
// (docs/store.md)

/// A value bound to a parameter or read from a row. `.bytes` is stored as a BLOB
/// (SQLite) or `bytea` (PostgreSQL).
public enum StoreValue: Sendable, Equatable {
    case null
    case int(Int)
    case text(String)
    case bytes([UInt8])

    public init(_ v: Int?) { self = v.map { .int($0) } ?? .null }
    public init(_ v: Bool?) { self = v.map { .int($0 ? 1 : 0) } ?? .null }
    public init(_ v: String?) { self = v.map { .text($0) } ?? .null }
}

/// One row of a query's answer, read by column index (0-based).
public protocol StoreRow {
    var columnCount: Int { get }
    func isNull(_ column: Int) -> Bool
    func int(_ column: Int) -> Int?
    /// The column's bytes as UTF-8 text (a BLOB/bytea column is decoded as UTF-8 too).
    func text(_ column: Int) -> String?
    func bytes(_ column: Int) -> [UInt8]?
}

public enum StoreEngine: String, Sendable {
    case sqlite, postgres
}

/// How a transaction begins (docs/store.md, "Transactions").
public enum TransactionKind: Sendable {
    /// Changes: SQLite `BEGIN IMMEDIATE` (one writer at a time); PostgreSQL
    /// `SERIALIZABLE` (a conflict with another writer fails with a retryable error).
    case write
    /// One consistent read: SQLite `BEGIN DEFERRED` on a WAL database; PostgreSQL
    /// `REPEATABLE READ READ ONLY`.
    case snapshot
}

/// A connection. SQL uses `$1`, `$2`, … for parameters on both engines, and only the
/// SQL both engines read the same way (docs/store.md, "One dialect").
public protocol StoreConnection: AnyObject {
    var engine: StoreEngine { get }
    /// The database as messages name it (never with a password).
    var shown: String { get }
    /// Runs a script of statements without parameters (schema changes).
    func script(_ sql: String) throws(StoreError)
    /// Runs one statement with parameters; the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ params: [StoreValue]) throws(StoreError) -> Int
    /// Runs one query with parameters, calling `row` for each row of the answer. An
    /// error thrown by `row` ends the query and is thrown as it is.
    func query(_ sql: String, _ params: [StoreValue], _ row: (StoreRow) throws -> Void) throws
    func begin(_ kind: TransactionKind) throws(StoreError)
    func commit() throws(StoreError)
    func rollback()
    /// Whether a transaction is open.
    var inTransaction: Bool { get }
    /// Whether a table of this name exists.
    func tableExists(_ name: String) throws(StoreError) -> Bool
}

extension StoreConnection {
    /// The rows of a query as values (small answers only).
    public func rows(_ sql: String, _ params: [StoreValue] = []) throws(StoreError) -> [[StoreValue]] {
        var out: [[StoreValue]] = []
        do {
            try query(sql, params) { r in
                var row: [StoreValue] = []
                for c in 0..<r.columnCount {
                    if r.isNull(c) { row.append(.null) } else if let i = r.int(c) { row.append(.int(i)) } else {
                        row.append(.bytes(r.bytes(c) ?? []))
                    }
                }
                out.append(row)
            }
        } catch let e as StoreError { throw e } catch { throw StoreError(.other, "\(error)") }
        return out
    }

    /// The first column of the first row as an integer, or nil.
    public func int(_ sql: String, _ params: [StoreValue] = []) throws(StoreError) -> Int? {
        var out: Int?
        do {
            try query(sql, params) { r in if out == nil { out = r.int(0) } }
        } catch let e as StoreError { throw e } catch { throw StoreError(.other, "\(error)") }
        return out
    }

    /// `column` for ORDER BY in byte order on both engines (PostgreSQL's default
    /// collation may follow the locale; `COLLATE "C"` compares bytes as SQLite does).
    public func byteOrder(_ column: String) -> String {
        engine == .postgres ? column + " COLLATE \"C\"" : column
    }

    /// The engine's type name for a 64-bit integer, and for bytes.
    public var integerType: String { engine == .postgres ? "BIGINT" : "INTEGER" }
    public var bytesType: String { engine == .postgres ? "BYTEA" : "BLOB" }
}

/// Opens the store `location` names.
public func openStore(_ location: StoreLocation, create: Bool = true) throws(StoreError) -> StoreConnection {
    switch location {
    case .sqlite(let path): return try SQLiteConnection(path: path, create: create)
    case .postgres(let conninfo, let shown): return try PostgresConnection(conninfo: conninfo, shown: shown)
    }
}
