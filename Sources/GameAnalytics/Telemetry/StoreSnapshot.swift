import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StudyStore

// MARK: - One consistent read of the study database (docs/game-privacy.md, "The data digest")

/// What a build reads from the study database, all inside one read transaction: the
/// cohort, every player's latest result key, and a digest of the rows the cohort was read
/// from. The digest is a function of the data alone (not of the file or the engine: a
/// change that sits in SQLite's `-wal` file counts, a checkpoint or `VACUUM` does not, and
/// the same rows give the same digest on SQLite and PostgreSQL), so a public release keyed
/// by it draws fresh noise for any change of the data and the same noise for the same data.
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
            let cohort = try readCohort()
            PausePoint.reached("snapshot")
            return StudySnapshot(cohort: cohort, resultKeys: try resultKeys(), rowsDigest: try rowsDigest())
        }
    }

    /// How the digest writes a column: an integer or text (NULL either way as 0x00).
    enum DigestKind { case int, text }

    /// The tables and columns the digest covers, in order (docs/game-privacy.md, "The data
    /// digest"), each column with the type it is stored as.
    func digestQueries() -> [(tag: UInt8, sql: String, kinds: [DigestKind])] {
        let p = conn.byteOrder("player"), k = conn.byteOrder("kind")
        return [
            (UInt8(ascii: "S"), "SELECT player, complete, diagnosed, medicated, age, gender FROM surveys ORDER BY \(p)",
             [.text, .int, .int, .int, .int, .text]),
            (UInt8(ascii: "T"), "SELECT player, session, start_ms, end_ms, score FROM sessions ORDER BY \(p), session",
             [.text, .int, .int, .int, .int]),
            (UInt8(ascii: "E"),
             "SELECT player, session, kind, seq, t_ms, interval_ms, obstacle_kind, volume_on, message"
                + " FROM events ORDER BY \(p), session, \(k), seq",
             [.text, .int, .text, .int, .int, .int, .text, .int, .text]),
        ]
    }

    /// SHA-256 over "dossier-rows-v1" and every row of `surveys`, `sessions` and `events`
    /// in primary-key order (text compared byte by byte), each row its table's tag byte and
    /// its columns typed: NULL 0x00; INTEGER 0x01 + 8 bytes big-endian; TEXT 0x03 + a
    /// 4-byte big-endian length + the UTF-8 bytes (free text kept as bytes on PostgreSQL
    /// counts as TEXT). (Inside the caller's read transaction when there is one.)
    public func rowsDigest() throws(GameError) -> Data {
        try read { () throws(GameError) -> Data in
            var h = SHA256()
            h.update(data: Data("dossier-rows-v1".utf8))
            for q in digestQueries() {
                try query(q.sql) { (s) throws(GameError) in
                    var row: [UInt8] = [q.tag]
                    for (c, kind) in q.kinds.enumerated() { Self.appendTyped(s, c, kind, to: &row) }
                    h.update(data: row)
                }
            }
            return Data(h.finalize())
        }
    }

    private static func appendTyped(_ s: StoreRow, _ c: Int, _ kind: DigestKind, to row: inout [UInt8]) {
        guard !s.isNull(c) else { row.append(0); return }
        switch kind {
        case .int:
            let v = UInt64(bitPattern: Int64(s.int(c) ?? 0))
            row.append(1)
            for i in (0..<8).reversed() { row.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
        case .text:
            let b = s.bytes(c) ?? []
            row.append(3)
            for i in (0..<4).reversed() { row.append(UInt8(truncatingIfNeeded: UInt32(b.count) >> (8 * UInt32(i)))) }
            row.append(contentsOf: b)
        }
    }

    // MARK: Reading players

    /// One player, or nil when nothing is stored for that id.
    public func readPlayer(_ id: String) throws(GameError) -> Player? {
        let c = try readCohort(only: id)
        return c.players.first
    }

    /// Every stored player (sorted by id, sessions by index), validated like the JSON Lines reader.
    public func readCohort() throws(GameError) -> Cohort { try readCohort(only: nil) }

    private func readCohort(only: String?) throws(GameError) -> Cohort {
        try read { () throws(GameError) -> Cohort in try readCohortInTransaction(only: only) }
    }

    private func readCohortInTransaction(only: String?) throws(GameError) -> Cohort {
        let filter = only == nil ? "" : " WHERE player = $1"
        let args: [StoreValue] = only.map { [.text($0)] } ?? []
        var surveys: [String: Survey] = [:]
        try query("SELECT player, complete, diagnosed, medicated, age, gender FROM surveys" + filter,
                  args) { (s) throws(GameError) in
            let id = s.text(0) ?? ""
            let sv = Survey(complete: s.int(1) == 1, diagnosed: s.int(2).map { $0 == 1 },
                            medicated: s.int(3).map { $0 == 1 },
                            age: s.int(4), gender: s.text(5))
            if let p = surveyProblem(sv) { throw GameError(file: self.path, "player \(id): \(p)") }
            surveys[id] = sv
        }
        var sessions: [String: [Int: Session]] = [:]
        try query("SELECT player, session, start_ms, end_ms, score FROM sessions" + filter,
                  args) { (s) throws(GameError) in
            let id = s.text(0) ?? ""
            let idx = s.int(1) ?? 0
            sessions[id, default: [:]][idx] = Session(index: idx, start: s.int(2) ?? 0, end: s.int(3) ?? 0,
                                                      score: s.int(4) ?? 0)
        }
        let sql = "SELECT player, session, kind, t_ms, interval_ms, obstacle_kind, volume_on, message FROM events"
            + filter
            + " ORDER BY \(conn.byteOrder("player")), session, \(conn.byteOrder("kind")), seq"
        try query(sql, args) { (s) throws(GameError) in
            let id = s.text(0) ?? "", idx = s.int(1) ?? 0, t = s.int(3) ?? 0
            guard sessions[id]?[idx] != nil else {
                throw GameError(file: self.path, "player \(id): events for session \(idx), which is not stored")
            }
            switch s.text(2) ?? "" {
            case "obstacle": sessions[id]![idx]!.obstacles.append(Obstacle(t: t, interval: s.int(4) ?? 0,
                    kind: s.text(5) ?? ""))
            case "tap": sessions[id]![idx]!.taps.append(t)
            case "jump": sessions[id]![idx]!.jumps.append(t)
            case "collision": sessions[id]![idx]!.collisions.append(t)
            case "volume": sessions[id]![idx]!.volume.append(VolumeToggle(t: t, on: s.int(6) == 1))
            default: sessions[id]![idx]!.errors.append(ErrorLog(t: t, message: s.text(7) ?? ""))
            }
        }
        var players: [Player] = []
        for id in Set(surveys.keys).union(sessions.keys) {
            guard isValidPlayerID(id) else { throw GameError(file: path, "a stored player id is not valid") }
            let ss = (sessions[id] ?? [:]).values.sorted { $0.index < $1.index }
            for s in ss { if let p = sessionProblem(s) { throw GameError(file: path, "player \(id): \(p)") } }
            players.append(Player(id: id, survey: surveys[id], sessions: ss))
        }
        return Cohort(players: players)
    }
}
