import Foundation
import Testing
@testable import StudyStore

/// The same statements on both engines (docs/store.md, "One dialect"): parameters,
/// bytes with every byte value, text with NUL on SQLite, integers at the 64-bit limits,
/// byte order of text, the schema and its version, and a newer version refused.
/// PostgreSQL runs only when DOSSIER_TEST_PG holds a libpq conninfo of an empty
/// database (`python3 Tests/e2e/pg_server.py` prints one); the e2e tests always run it.
@Suite(.serialized) struct StoreEnginesTests {
    static func engines() throws -> [StoreConnection] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("s.sqlite").path
        var out: [StoreConnection] = [try SQLiteConnection(path: path, create: true)]
        if let conninfo = ProcessInfo.processInfo.environment["DOSSIER_TEST_PG"], !conninfo.isEmpty {
            let pg = try PostgresConnection(conninfo: conninfo, shown: "DOSSIER_TEST_PG")
            try pg.script("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
            out.append(pg)
        } else {
            print("StoreEnginesTests: PostgreSQL skipped — DOSSIER_TEST_PG (a libpq conninfo) is not set")
        }
        return out
    }

    @Test func valuesComeBackAsTheyWent() throws {
        for c in try Self.engines() {
            try StudySchema.migrate(c)
            let all = [UInt8](0...255)
            try c.transaction(.write) {
                try c.run("INSERT INTO recall_logs(name, bytes, sha256) VALUES($1, $2, $3)",
                          [.text("é.jsonl"), .bytes(all), .text(String(repeating: "a", count: 64))])
                try c.run("INSERT INTO sessions(player, session, start_ms, end_ms, score) VALUES($1,$2,$3,$4,$5)",
                          [.text("p"), .int(1), .int(Int.max), .int(Int.min), .int(-1)])
            }
            var got: [UInt8]? = nil
            try c.query("SELECT bytes FROM recall_logs WHERE name = $1", [.text("é.jsonl")]) { got = $0.bytes(0) }
            #expect(got == all, "\(c.engine)")
            let row = try c.rows("SELECT start_ms, end_ms, score FROM sessions")
            #expect(row == [[.int(Int.max), .int(Int.min), .int(-1)]], "\(c.engine)")
            try c.run("INSERT INTO meta(key, value) VALUES($1, $2), ($3, $4)",
                      [.text("b"), .text("1"), .text("B"), .text("2")])
            var order: [String] = []
            try c.query("SELECT key FROM meta WHERE key IN ('b', 'B') ORDER BY \(c.byteOrder("key"))", []) {
                order.append($0.text(0) ?? "")
            }
            #expect(order == ["B", "b"], "\(c.engine)")
            #expect(try StudySchema.version(c) == StudySchema.latest)
        }
    }

    @Test func aNewerSchemaIsRefusedUntouched() throws {
        for c in try Self.engines() {
            try StudySchema.migrate(c)
            try c.run("UPDATE meta SET value = $1 WHERE key = 'schema_version'", [.text("\(StudySchema.latest + 1)")])
            do {
                try StudySchema.migrate(c)
                Issue.record("accepted")
            } catch {
                #expect(error.kind == .newerSchema)
                #expect(error.message.contains("schema version \(StudySchema.latest + 1)"))
            }
            #expect(try StudySchema.version(c) == StudySchema.latest + 1)
        }
    }

    @Test func aFailedTransactionLeavesNothing() throws {
        for c in try Self.engines() {
            try StudySchema.migrate(c)
            do {
                try c.transaction(.write) {
                    let sql = "INSERT INTO uploads(content_sha256, player, sessions) VALUES($1, $2, 0)"
                    try c.run(sql, [.text("h"), .text("p")])
                    try c.run(sql, [.text("h"), .text("p")])
                }
                Issue.record("a duplicate key was accepted")
            } catch {}
            #expect(try c.int("SELECT COUNT(*) FROM uploads") == 0, "\(c.engine)")
        }
    }
}

/// A version-2 SQLite study (as dossier wrote them before schema 3) is upgraded in place:
/// the new tables appear, an existing ledger keeps its rows in their order as `seq`.
@Suite struct SchemaUpgradeTests {
    @Test func aVersionTwoDatabaseBecomesVersionThree() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try SQLiteConnection(path: dir.appendingPathComponent("v2.sqlite").path, create: true)
        try c.script("""
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO meta VALUES('schema_version', '2');
            CREATE TABLE uploads(content_sha256 TEXT PRIMARY KEY, player TEXT NOT NULL, sessions INTEGER NOT NULL);
            CREATE TABLE privacy_ledger(release TEXT PRIMARY KEY, epsilon TEXT NOT NULL,
                delta TEXT NOT NULL, section TEXT NOT NULL, published TEXT NOT NULL);
            INSERT INTO privacy_ledger VALUES('zz', '6', '0', 'game', '2026-01-01');
            INSERT INTO privacy_ledger VALUES('aa', '6', '0', 'game', '2026-01-02');
            """)
        let step = try StudySchema.migrate(c)
        #expect(step.from == 2 && step.to == StudySchema.latest)
        let ledger = try c.rows("SELECT release, seq FROM privacy_ledger ORDER BY seq")
        #expect(ledger == [[.bytes(Array("zz".utf8)), .int(1)], [.bytes(Array("aa".utf8)), .int(2)]])
        #expect(try c.tableExists("recall_logs") && c.tableExists("devices") && c.tableExists("privacy_key"))
        #expect(try StudySchema.migrate(c).from == StudySchema.latest)
    }
}
