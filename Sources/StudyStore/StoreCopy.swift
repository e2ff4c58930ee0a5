// MARK: - Moving a study between databases (`dossier db copy`, docs/store.md)

extension StoreConnection {
    /// Inserts `rows` into `table`, up to 100 rows a statement (one round trip each on
    /// PostgreSQL instead of one per row). `suffix` ends each statement (e.g. an ON
    /// CONFLICT clause).
    public func insertRows(_ table: String, _ columns: [String], _ rows: [[StoreValue]],
                           suffix: String = "") throws(StoreError) {
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + 100)]
            var sql = "INSERT INTO \(table)(\(columns.joined(separator: ", "))) VALUES"
            var n = 0
            for k in 0..<chunk.count {
                var group: [String] = []
                for _ in columns { n += 1; group.append("$\(n)") }
                sql += (k == 0 ? "(" : ",(") + group.joined(separator: ",") + ")"
            }
            try run(sql + suffix, chunk.flatMap { $0 })
            start += chunk.count
        }
    }
}

public enum StoreCopy {
    /// How each column of ``StudySchema/tables`` is read and written: `i` integer, `t`
    /// text, `f` free text (TEXT on SQLite, bytes on PostgreSQL), `b` bytes.
    static let kinds: [String: [Character]] = [
        "meta": ["t", "t"], "surveys": ["t", "i", "i", "i", "i", "t"], "sessions": ["t", "i", "i", "i", "i"],
        "events": ["t", "i", "t", "i", "i", "i", "f", "i", "f"], "uploads": ["t", "t", "i"],
        "devices": ["t", "t", "t"], "privacy_key": ["i", "t", "t", "i"],
        "privacy_ledger": ["t", "t", "t", "t", "t", "i"], "recall_logs": ["t", "b", "t"],
        "recall_devices": ["t", "t"],
    ]

    /// Copies every table of `source` into `target` (both brought to the current schema
    /// first): the target's rows are written in one transaction, from one snapshot of the
    /// source. A target holding any row (besides `meta`) is refused unless `replace`,
    /// which empties it first, in the same transaction. Returns each table's row count.
    @discardableResult
    public static func copy(from source: StoreConnection, to target: StoreConnection,
                            replace: Bool) throws -> [(table: String, rows: Int)] {
        for c in [source, target] {
            do { try StudySchema.migrate(c) } catch {
                throw StoreError(error.kind, "\(c.shown): \(error.message)", sqlState: error.sqlState)
            }
        }
        return try target.transaction(.write, attempts: 1) { () throws -> [(table: String, rows: Int)] in
            for t in StudySchema.tables where t.name != "meta" {
                let n = try target.int("SELECT COUNT(*) FROM \(t.name)") ?? 0
                guard n > 0 else { continue }
                guard replace else {
                    throw StoreError(.other, "\(target.shown) is not empty (table \(t.name) holds \(n) rows): "
                        + "copy into "
                        + "an empty database, or give --replace to replace what it holds")
                }
            }
            if replace {
                for t in StudySchema.tables.reversed() where t.name != "meta" {
                    try target.run("DELETE FROM \(t.name)", [])
                }
            }
            return try source.transaction(.snapshot) { () throws -> [(table: String, rows: Int)] in
                var counts: [(table: String, rows: Int)] = []
                for t in StudySchema.tables {
                    let kinds = Self.kinds[t.name] ?? []
                    let suffix = t.name == "meta" ? " ON CONFLICT(key) DO UPDATE SET value = excluded.value" : ""
                    var batch: [[StoreValue]] = []
                    var total = 0
                    try source.query("SELECT \(t.columns.joined(separator: ", ")) FROM \(t.name)", []) { r in
                        batch.append(Self.values(r, kinds, target: target.engine))
                        if batch.count == 500 {
                            try target.insertRows(t.name, t.columns, batch, suffix: suffix)
                            total += batch.count
                            batch.removeAll(keepingCapacity: true)
                        }
                    }
                    try target.insertRows(t.name, t.columns, batch, suffix: suffix)
                    counts.append((t.name, total + batch.count))
                }
                return counts
            }
        }
    }

    static func values(_ r: StoreRow, _ kinds: [Character], target: StoreEngine) -> [StoreValue] {
        kinds.enumerated().map { c, kind in
            if r.isNull(c) { return .null }
            switch kind {
            case "i": return StoreValue(r.int(c))
            case "b": return .bytes(r.bytes(c) ?? [])
            case "f": return target == .postgres ? .bytes(r.bytes(c) ?? []) : .text(r.text(c) ?? "")
            default: return .text(r.text(c) ?? "")
            }
        }
    }
}
