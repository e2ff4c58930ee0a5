// MARK: - Recall logs kept in the study database (docs/store.md, "recall_logs")

/// The `recall_logs` table: one row per participant log — its file name, its bytes and
/// their SHA-256 (lowercase hex), each name and each hash at most once.
public final class RecallLogTable {
    public let conn: StoreConnection

    /// Opens `location` and brings its schema to the current version.
    public init(_ location: StoreLocation, create: Bool = true) throws(StoreError) {
        conn = try openStore(location, create: create)
        try StudySchema.migrate(conn)
    }

    /// Uses an open connection, bringing its schema to the current version.
    public init(_ connection: StoreConnection) throws(StoreError) {
        conn = connection
        try StudySchema.migrate(conn)
    }

    /// Whether a log with these bytes (by hash) is stored.
    public func contains(sha256: String) throws(StoreError) -> Bool {
        try conn.int("SELECT COUNT(*) FROM recall_logs WHERE sha256 = $1", [.text(sha256)]) ?? 0 > 0
    }

    /// Stores a log in its own transaction: true when stored now, false when these bytes
    /// were already stored (under any name). Another log under the same name is an error.
    public func store(name: String, bytes: [UInt8], sha256: String) throws -> Bool {
        guard Self.isHash(sha256) else {
            throw StoreError(.other, "recall log \(name): the SHA-256 is not 64 hex digits")
        }
        return try conn.transaction(.write) { () throws -> Bool in
            let added = try conn.run("INSERT INTO recall_logs(name, bytes, sha256) VALUES($1, $2, $3) "
                                     + "ON CONFLICT DO NOTHING",
                                     [.text(name), .bytes(bytes), .text(sha256)])
            if added == 1 { return true }
            if try contains(sha256: sha256) { return false }
            throw StoreError(.other, "recall_logs already holds a different log named \(name): rename one")
        }
    }

    /// Every log's name and hash, in byte order of the names (inside the caller's
    /// snapshot when there is one).
    public func list() throws(StoreError) -> [(name: String, sha256: String)] {
        var out: [(String, String)] = []
        do {
            try conn.query("SELECT name, sha256 FROM recall_logs ORDER BY \(conn.byteOrder("name"))", []) { r in
                out.append((r.text(0) ?? "", r.text(1) ?? ""))
            }
        } catch let e as StoreError { throw e } catch { throw StoreError(.other, "\(error)") }
        return out
    }

    /// The SHA-256 of the log named `name`, or nil.
    public func digest(name: String) throws(StoreError) -> String? {
        var out: String?
        do {
            try conn.query("SELECT sha256 FROM recall_logs WHERE name = $1", [.text(name)]) { r in out = r.text(0) }
        } catch let e as StoreError { throw e } catch { throw StoreError(.other, "\(error)") }
        return out
    }

    /// The bytes of the log named `name`, or nil.
    public func bytes(name: String) throws(StoreError) -> [UInt8]? {
        var out: [UInt8]?
        do {
            try conn.query("SELECT bytes FROM recall_logs WHERE name = $1", [.text(name)]) { r in out = r.bytes(0) }
        } catch let e as StoreError { throw e } catch { throw StoreError(.other, "\(error)") }
        return out
    }

    /// The signing key (base64) pinned for a recall kit's `device`, or nil.
    public func pinnedKey(device: String) throws(StoreError) -> String? {
        var out: String?
        do {
            try conn.query("SELECT signing_key FROM recall_devices WHERE device = $1", [.text(device)]) { r in
                out = r.text(0)
            }
        } catch let e as StoreError { throw e } catch { throw StoreError(.other, "\(error)") }
        return out
    }

    /// Pins `signingKey` for `device` in its own transaction unless the device has a pin
    /// already (the first pin stays: two ingests pinning at once agree on one).
    public func pin(device: String, signingKey: String) throws {
        try conn.transaction(.write) { () throws in
            try conn.run("INSERT INTO recall_devices(device, signing_key) VALUES($1, $2) ON CONFLICT DO NOTHING",
                         [.text(device), .text(signingKey)])
        }
    }

    /// 64 lowercase hexadecimal digits.
    public static func isHash(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
