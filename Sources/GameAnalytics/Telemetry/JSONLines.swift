#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics
import Escaping
import JSONLines

// MARK: - JSON Lines telemetry (docs/game-telemetry.md)

/// Reads and writes the JSON Lines telemetry format: one JSON object per line, either a
/// `survey` or a `session` record. Blank lines are ignored.
public enum TelemetryJSONL {

    /// Accumulates records from one or more files into players.
    public struct Reader {
        private var surveys: [String: (Survey, String, Int)] = [:]
        private var sessions: [String: [Int: (Session, String, Int)]] = [:]
        /// The game kit's obstacle seed of each session that records one (player → session →
        /// seed and line): what `game ingest` recomputes the session from (``KitModel``).
        public private(set) var seeds: [String: [Int: (seed: Int, line: Int)]] = [:]

        public init() {}

        /// Parses every line of `text` (named `file` in messages): lines split at LF (a
        /// CR before it dropped), lines of only spaces and tabs skipped, each other line
        /// one record (docs/json-lines.md).
        public mutating func add(text: String, file: String) throws(GameError) {
            try JSONLinesFile.withBytes(of: text) { p throws(GameError) in
                var lineNo = 0
                var start = 0
                while start < p.count {
                    lineNo += 1
                    let stop = JSONLinesFile.lineEnd(p, from: start)
                    var e = stop
                    if e > start, p[e - 1] == 0x0D { e -= 1 }
                    if !JSONLinesFile.isBlank(p, from: start, to: e) {
                        try addLine(p, from: start, to: e, file: file, line: lineNo)
                    }
                    start = stop + 1
                }
            }
        }

        /// Parses one record.
        public mutating func addLine(_ line: String, file: String, line lineNo: Int) throws(GameError) {
            try JSONLinesFile.withBytes(of: line) { p throws(GameError) in
                try addLine(p, from: 0, to: p.count, file: file, line: lineNo)
            }
        }

        mutating func addLine(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int, file: String,
                              line lineNo: Int) throws(GameError) {
            func fail(_ m: String) -> GameError { GameError(file: file, line: lineNo, m) }
            let obj: JNode
            do { obj = try JSONReader.record(p, from: from, to: to, file: file, line: lineNo) } catch {
                throw GameError(error)
            }
            let r = Record(obj, fail: fail)
            let type = try r.string("type")
            let player = try r.string("player")
            guard isValidPlayerID(player) else {
                throw fail("player id must be 1–64 characters from A–Z a–z 0–9 _ -")
            }
            switch type {
            case "survey":
                try r.only(["type", "player", "complete", "diagnosed", "medicated", "age", "gender"])
                let s = Survey(complete: try r.bool("complete"), diagnosed: try r.optBool("diagnosed"),
                               medicated: try r.optBool("medicated"), age: try r.optInt("age"),
                               gender: try r.optString("gender"))
                if let p = surveyProblem(s) { throw fail(p) }
                if let (old, oldFile, oldLine) = surveys[player], old.complete {
                    // A stale incomplete draft arriving after the complete survey is ignored.
                    if !s.complete { return }
                    if old != s {
                        throw fail("a second, different survey for player \(player) "
                                   + "(the first is at \(oldFile):\(oldLine))")
                    }
                    return
                }
                surveys[player] = (s, file, lineNo)
            case "session":
                try r.only(["type", "player", "session", "start", "end", "score", "seed", "obstacles", "taps", "jumps",
                            "collisions", "volume", "errors"])
                let seed = try r.optInt("seed")
                if let seed, !(0...0xFFFF_FFFF).contains(seed) { throw fail("seed \(seed) is outside 0…4294967295") }
                let obstacles = try r.list("obstacles").enumerated().map { (i, v) throws(GameError) -> Obstacle in
                    guard let a = v.items, a.count == 3, let t = intValue(a[0]), let iv = intValue(a[1]),
                          let k = a[2].stringValue else {
                        throw fail("obstacles[\(i)] must be [time, interval, kind]")
                    }
                    return Obstacle(t: t, interval: iv, kind: k)
                }
                let volume = try r.list("volume").enumerated().map { (i, v) throws(GameError) -> VolumeToggle in
                    guard let a = v.items, a.count == 2, let t = intValue(a[0]), let on = intValue(a[1]),
                          on == 0 || on == 1 else {
                        throw fail("volume[\(i)] must be [time, 0 or 1]")
                    }
                    return VolumeToggle(t: t, on: on == 1)
                }
                let errors = try r.list("errors").enumerated().map { (i, v) throws(GameError) -> ErrorLog in
                    guard let a = v.items, a.count == 2, let t = intValue(a[0]), let m = a[1].stringValue else {
                        throw fail("errors[\(i)] must be [time, message]")
                    }
                    return ErrorLog(t: t, message: m)
                }
                let s = Session(index: try r.int("session"), start: try r.int("start"), end: try r.int("end"),
                                score: try r.int("score"), obstacles: obstacles, taps: try r.ints("taps"),
                                jumps: try r.ints("jumps"), collisions: try r.ints("collisions"),
                                volume: volume, errors: errors)
                if let p = sessionProblem(s) { throw fail(p) }
                if let (old, oldFile, oldLine) = sessions[player]?[s.index] {
                    if old == s { return }   // the same session delivered twice is stored once
                    throw fail("player \(player) session \(s.index) appears twice with different data "
                               + "(first at \(oldFile):\(oldLine))")
                }
                sessions[player, default: [:]][s.index] = (s, file, lineNo)
                if let seed { seeds[player, default: [:]][s.index] = (seed, lineNo) }
            default:
                throw fail("unknown record type '\(type)' (expected survey or session)")
            }
        }

        /// The players read so far, sorted by id, sessions sorted by index.
        public func cohort() -> Cohort {
            let ids = Set(surveys.keys).union(sessions.keys)
            return Cohort(players: ids.map { id in
                Player(id: id, survey: surveys[id]?.0,
                       sessions: (sessions[id] ?? [:]).values.map(\.0).sorted { $0.index < $1.index })
            })
        }
    }

    /// Reads files (in the given order) into a cohort.
    public static func read(files: [URL],
                            displayName: (URL) -> String = { $0.lastPathComponent }) throws(GameError) -> Cohort {
        var reader = Reader()
        for f in files {
            let text: String
            guard let data = FileManager.default.contents(atPath: f.path) else {
                throw GameError(file: displayName(f), "cannot read the file")
            }
            if let (line, message) = UTF8Check.problem(data) {
                throw GameError(file: displayName(f), line: line, message)
            }
            text = String(decoding: data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data, as: UTF8.self)
            try reader.add(text: text, file: displayName(f))
        }
        return reader.cohort()
    }

    // MARK: Writing

    /// The records of one player: the survey (if any) then each session, one line each;
    /// `seeds` (session → obstacle seed, as ``Reader/seeds``) adds the kit's `seed` field.
    public static func lines(for p: Player, seeds: [Int: Int] = [:]) -> [String] {
        var out: [String] = []
        if let s = p.survey {
            var f = ["\"type\":\"survey\"", "\"player\":\(jsonString(p.id))", "\"complete\":\(s.complete)"]
            if let d = s.diagnosed { f.append("\"diagnosed\":\(d)") }
            if let m = s.medicated { f.append("\"medicated\":\(m)") }
            if let a = s.age { f.append("\"age\":\(a)") }
            if let g = s.gender { f.append("\"gender\":\(jsonString(g))") }
            out.append("{" + f.joined(separator: ",") + "}")
        }
        for s in p.sessions {
            let obs = s.obstacles.map { "[\($0.t),\($0.interval),\(jsonString($0.kind))]" }.joined(separator: ",")
            let vol = s.volume.map { "[\($0.t),\($0.on ? 1 : 0)]" }.joined(separator: ",")
            let err = s.errors.map { "[\($0.t),\(jsonString($0.message))]" }.joined(separator: ",")
            func ints(_ a: [Int]) -> String { a.map(String.init).joined(separator: ",") }
            out.append("{\"type\":\"session\",\"player\":\(jsonString(p.id)),"
                + "\"session\":\(s.index),\"start\":\(s.start),"
                + "\"end\":\(s.end),\"score\":\(s.score)," + (seeds[s.index].map { "\"seed\":\($0)," } ?? "")
                + "\"obstacles\":[\(obs)],\"taps\":[\(ints(s.taps))],"
                + "\"jumps\":[\(ints(s.jumps))],\"collisions\":[\(ints(s.collisions))],"
                + "\"volume\":[\(vol)],\"errors\":[\(err)]}")
        }
        return out
    }

    /// The whole cohort as JSON Lines text (players in id order).
    public static func text(for cohort: Cohort) -> String {
        cohort.players.flatMap { lines(for: $0) }.map { $0 + "\n" }.joined()
    }
}

// MARK: - Helpers

func jsonString(_ s: String) -> String { JSONText.quote(s) }

/// A JSON number that is a whole number a double holds exactly (|n| ≤ 2⁵³ − 1), else nil.
func intValue(_ v: JNode) -> Int? {
    guard let d = v.numberValue, d.rounded() == d, abs(d) <= 9_007_199_254_740_991 else { return nil }
    return Int(d)
}

/// The members of one record, read by name (keys never repeat: the reader refuses that).
private struct Record {
    let obj: [String: JNode]
    let fail: (String) -> GameError
    init(_ node: JNode, fail: @escaping (String) -> GameError) {
        var obj: [String: JNode] = [:]
        for m in node.members ?? [] { obj[m.key] = m.value }
        self.obj = obj
        self.fail = fail
    }

    func only(_ keys: Set<String>) throws(GameError) {
        if let extra = obj.keys.sorted().first(where: { !keys.contains($0) }) { throw fail("unknown field '\(extra)'") }
    }
    func string(_ k: String) throws(GameError) -> String {
        guard let s = obj[k]?.stringValue else { throw fail("'\(k)' must be a string") }
        return s
    }
    func optString(_ k: String) throws(GameError) -> String? {
        guard let v = obj[k], !v.isNull else { return nil }
        guard let s = v.stringValue else { throw fail("'\(k)' must be a string") }
        return s
    }
    func bool(_ k: String) throws(GameError) -> Bool {
        guard let b = obj[k]?.boolValue else { throw fail("'\(k)' must be true or false") }
        return b
    }
    func optBool(_ k: String) throws(GameError) -> Bool? {
        guard let v = obj[k], !v.isNull else { return nil }
        guard let b = v.boolValue else { throw fail("'\(k)' must be true or false") }
        return b
    }
    func int(_ k: String) throws(GameError) -> Int {
        guard let v = obj[k], let i = intValue(v) else { throw fail("'\(k)' must be a whole number") }
        return i
    }
    func optInt(_ k: String) throws(GameError) -> Int? {
        guard let v = obj[k], !v.isNull else { return nil }
        guard let i = intValue(v) else { throw fail("'\(k)' must be a whole number") }
        return i
    }
    func list(_ k: String) throws(GameError) -> [JNode] {
        guard let v = obj[k] else { return [] }
        guard let a = v.items else { throw fail("'\(k)' must be a list") }
        return a
    }
    func ints(_ k: String) throws(GameError) -> [Int] {
        try list(k).enumerated().map { (i, v) throws(GameError) -> Int in
            guard let n = intValue(v) else { throw fail("\(k)[\(i)] must be a whole number of ms") }
            return n
        }
    }
}
