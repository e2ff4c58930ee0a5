import StudyStore

// MARK: - Where `recall ingest` puts a verified log (docs/store.md, "recall_logs")

/// A place that keeps participant logs once each: `contains` says whether these bytes (by
/// SHA-256, lowercase hex) are kept already; `store` keeps a log and answers true when it
/// was new, false when the same bytes were there.
public protocol RecallLogSink {
    func contains(sha256: String) throws -> Bool
    func store(name: String, bytes: [UInt8], sha256: String) throws -> Bool
}

/// The study database's `recall_logs` table (SQLite or PostgreSQL) as a sink: each log
/// stored in its own transaction, exactly once by its hash, however many ingests run at
/// once against one PostgreSQL database.
public final class RecallLogDatabase: RecallLogSink {
    public let table: RecallLogTable

    public init(_ location: StoreLocation) throws {
        table = try RecallLogTable(location)
    }

    public func contains(sha256: String) throws -> Bool { try table.contains(sha256: sha256) }

    public func store(name: String, bytes: [UInt8], sha256: String) throws -> Bool {
        try table.store(name: name, bytes: bytes, sha256: sha256)
    }
}
