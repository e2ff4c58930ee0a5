#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - The public site's privacy key and ledger, kept in the study database
// (docs/game-privacy.md, "One key and one ledger per database")

/// The privacy key and the release ledger belong to the data, not to a project folder or a
/// build cache: every project that builds from this database, every copy of its site and a
/// build after the cache was cleared find the same key (so the same noise) and add to the
/// same budget. Whoever holds the database holds the data the key protects, so keeping the
/// key with it reveals nothing new.
///
/// Two tables of the schema (``StudySchema``, version 3): `privacy_key` (one row, or none
/// before the first build) and `privacy_ledger` (one row per release, `seq` its order).
public struct PrivacyKeyRecord: Sendable, Equatable {
    /// 64 hexadecimal digits (never printed).
    public var keyHex: String
    /// A random 128-bit name of this database (32 hexadecimal digits), public: releases
    /// name it so that `publish` finds their ledger.
    public var databaseID: String
    /// The lifetime budget set when the key was made, in thousandths of ε.
    public var lifetimeMilli: Int
    public init(keyHex: String, databaseID: String, lifetimeMilli: Int) {
        self.keyHex = keyHex; self.databaseID = databaseID; self.lifetimeMilli = lifetimeMilli
    }
}

/// One ledger line as the database stores it (the same fields as `privacy-ledger.txt`).
public struct PrivacyLedgerRow: Sendable, Equatable {
    public var release: String, epsilon: String, delta: String, section: String, published: String
    public init(release: String, epsilon: String, delta: String, section: String, published: String) {
        self.release = release; self.epsilon = epsilon; self.delta = delta
        self.section = section; self.published = published
    }
}

extension StudyDatabase {
    /// The stored key, or nil when none was made yet (reads only: `dossier check` writes nothing).
    public func privacyKey() throws(GameError) -> PrivacyKeyRecord? {
        try read { () throws(GameError) -> PrivacyKeyRecord? in
            var out: PrivacyKeyRecord?
            let sql = "SELECT key, database_id, lifetime_milli FROM privacy_key WHERE id = 1"
            try query(sql) { (s) throws(GameError) in
                out = PrivacyKeyRecord(keyHex: s.text(0) ?? "", databaseID: s.text(1) ?? "",
                                       lifetimeMilli: s.int(2) ?? 0)
            }
            return out
        }
    }

    /// Stores `record` unless a key is already there, and returns the key that is stored
    /// (two builds that both found no key agree on the first one written).
    public func storePrivacyKey(_ record: PrivacyKeyRecord) throws(GameError) -> PrivacyKeyRecord {
        try transaction { () throws(GameError) -> PrivacyKeyRecord in
            try run("INSERT INTO privacy_key(id, key, database_id, lifetime_milli) VALUES(1, $1, $2, $3) "
                    + "ON CONFLICT DO NOTHING",
                    [.text(record.keyHex), .text(record.databaseID), .int(record.lifetimeMilli)])
            return try privacyKey() ?? record
        }
    }

    /// The ledger, in the order the releases were recorded (`seq`).
    public func privacyLedger() throws(GameError) -> [PrivacyLedgerRow] {
        try read { () throws(GameError) -> [PrivacyLedgerRow] in
            var out: [PrivacyLedgerRow] = []
            let sql = "SELECT release, epsilon, delta, section, published FROM privacy_ledger ORDER BY seq"
            try query(sql) { (s) throws(GameError) in
                out.append(PrivacyLedgerRow(release: s.text(0) ?? "", epsilon: s.text(1) ?? "", delta: s.text(2) ?? "",
                                            section: s.text(3) ?? "", published: s.text(4) ?? ""))
            }
            return out
        }
    }

    /// Adds the rows the ledger does not hold yet (by release), in one transaction, each
    /// numbered after the last (`seq`); returns whether it added them and the whole ledger
    /// as committed.
    ///
    /// `accept` sees the ledger as it is inside that transaction, after every other
    /// publish's committed rows, and may say no to add nothing: a budget check there
    /// cannot be passed by two publishes at once (docs/game-privacy.md, "One publish at a
    /// time per ledger"). PostgreSQL: the transaction first takes `privacy_ledger` in SHARE
    /// ROW EXCLUSIVE mode (one such writer at a time; readers go on), before its snapshot
    /// is taken; SQLite: `BEGIN IMMEDIATE` is already one writer at a time.
    @discardableResult
    public func appendPrivacyLedger(
        _ rows: [PrivacyLedgerRow], accept: ([PrivacyLedgerRow]) -> Bool = { _ in true }
    ) throws(GameError) -> (added: Bool, ledger: [PrivacyLedgerRow]) {
        try transaction { () throws(GameError) -> (added: Bool, ledger: [PrivacyLedgerRow]) in
            if engine == .postgres { try exec("LOCK TABLE privacy_ledger IN SHARE ROW EXCLUSIVE MODE") }
            let committed = try privacyLedger()
            guard accept(committed) else { return (false, committed) }
            for r in rows {
                try run("INSERT INTO privacy_ledger(release, epsilon, delta, section, published, seq) "
                        + "VALUES($1,$2,$3,$4,$5,"
                        + "(SELECT COALESCE(MAX(seq), 0) + 1 FROM privacy_ledger)) ON CONFLICT DO NOTHING",
                        [.text(r.release), .text(r.epsilon), .text(r.delta), .text(r.section), .text(r.published)])
            }
            return (true, try privacyLedger())
        }
    }
}
