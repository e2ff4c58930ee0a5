import CSQLite
import Crypto
import Foundation

// MARK: - One consistent read of the study database (docs/game-privacy.md, "The data digest")

/// What a build reads from the study database, all inside one read transaction: the
/// cohort, every player's latest result key, and a digest of the rows the cohort was read
/// from. The digest is a function of the data alone (not of the file: a change that sits in
/// the `-wal` file counts, a checkpoint or `VACUUM` does not), so a public release keyed by
/// it draws fresh noise for any change of the data and the same noise for the same data.
public struct StudySnapshot: Sendable {
    public var cohort: Cohort
    /// Player id → base64 result key (``StudyDatabase/resultKeys()``).
    public var resultKeys: [String: String]
    /// SHA-256 of the rows, ``StudyDatabase/rowsDigest()``.
    public var rowsDigest: Data
    public init(cohort: Cohort, resultKeys: [String: String], rowsDigest: Data) {
        self.cohort = cohort; self.resultKeys = resultKeys; self.rowsDigest = rowsDigest
    }
}

extension StudyDatabase {
    /// The cohort, the result keys and the rows' digest from one snapshot: an ingest that
    /// commits meanwhile is in all three or in none.
    public func snapshot() throws(GameError) -> StudySnapshot {
        try read { () throws(GameError) -> StudySnapshot in
            StudySnapshot(cohort: try readCohort(), resultKeys: try resultKeys(), rowsDigest: try rowsDigest())
        }
    }

    /// The tables and columns the digest covers, in order (docs/game-privacy.md, "The data digest").
    static let digestQueries: [(tag: UInt8, sql: String)] = [
        (UInt8(ascii: "S"), "SELECT player, complete, diagnosed, medicated, age, gender FROM surveys ORDER BY player"),
        (UInt8(ascii: "T"), "SELECT player, session, start_ms, end_ms, score FROM sessions ORDER BY player, session"),
        (UInt8(ascii: "E"), "SELECT player, session, kind, seq, t_ms, interval_ms, obstacle_kind, volume_on, message"
            + " FROM events ORDER BY player, session, kind, seq"),
    ]

    /// SHA-256 over "dossier-rows-v1" and every row of `surveys`, `sessions` and `events`
    /// in primary-key order, each row its table's tag byte and its columns typed:
    /// NULL 0x00; INTEGER 0x01 + 8 bytes big-endian; REAL 0x02 + the IEEE 754 bits
    /// big-endian; TEXT 0x03 and BLOB 0x04 + a 4-byte big-endian length + the bytes.
    /// (Inside the caller's read transaction when there is one.)
    public func rowsDigest() throws(GameError) -> Data {
        try read { () throws(GameError) -> Data in
            var h = SHA256()
            h.update(data: Data("dossier-rows-v1".utf8))
            for q in Self.digestQueries {
                let st = try prepare(q.sql)
                try run(st, []) { (s) throws(GameError) in
                    var row: [UInt8] = [q.tag]
                    for c in 0..<sqlite3_column_count(s.stmt) { Self.appendTyped(s.stmt, c, to: &row) }
                    h.update(data: row)
                }
            }
            return Data(h.finalize())
        }
    }

    private static func appendTyped(_ stmt: OpaquePointer?, _ c: Int32, to row: inout [UInt8]) {
        func be64(_ v: UInt64) { for i in (0..<8).reversed() { row.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        func bytes(_ tag: UInt8, _ p: UnsafeRawPointer?, _ n: Int) {
            row.append(tag)
            for i in (0..<4).reversed() { row.append(UInt8(truncatingIfNeeded: UInt32(n) >> (8 * UInt32(i)))) }
            if let p, n > 0 { row.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n)) }
        }
        switch sqlite3_column_type(stmt, c) {
        case SQLITE_NULL: row.append(0)
        case SQLITE_INTEGER: row.append(1); be64(UInt64(bitPattern: sqlite3_column_int64(stmt, c)))
        case SQLITE_FLOAT: row.append(2); be64(sqlite3_column_double(stmt, c).bitPattern)
        case SQLITE_TEXT: let p = sqlite3_column_text(stmt, c); bytes(3, p.map { UnsafeRawPointer($0) }, Int(sqlite3_column_bytes(stmt, c)))
        default: let p = sqlite3_column_blob(stmt, c); bytes(4, p, Int(sqlite3_column_bytes(stmt, c)))
        }
    }
}
