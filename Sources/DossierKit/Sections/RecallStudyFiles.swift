#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

/// The study-wide data files of the recall summary (docs/recall-study-data.md): each
/// table as CSV and as JSON with the same fields.
enum RecallStudyFiles {
    /// The files computed from the participants' aggregates (``StudyAggregate``):
    /// `strings`, `study-strings` and the Appendix B table.
    static func aggregateFiles(strings: StringSet, aggregate: StudyAggregate, dir: String = "recall/") -> [OutputFile] {
        aggregateFiles(
            strings: strings, stringsTable: aggregate.stringsTable(strings), appendixB: aggregate.appendixB, dir: dir)
    }

    private static func aggregateFiles(strings: StringSet, stringsTable: RecallStudy.Table, appendixB: CohortTable,
                                       dir: String) -> [OutputFile] {
        var out: [OutputFile] = []
        func both(_ name: String, _ t: RecallStudy.Table) {
            out.append(OutputFile(path: "\(dir)\(name).csv", data: RecallRender.csv(t)))
            out.append(OutputFile(path: "\(dir)\(name).json", data: json(t)))
        }
        both("strings", stringsTable)
        both("study-strings", StudyTables.studyColumns(strings))
        out.append(OutputFile(path: dir + "study-table-appendix-b.csv", data: RecallRender.csv(appendixB.rows())))
        return out
    }

    /// Every study-wide file built from whole tables of the participants' details: the
    /// reference the block-concatenating build (``stream(participants:blocks:dir:to:)``)
    /// must equal byte for byte (`RecallRowBlocksTests`).
    static func files(strings: StringSet, participants ps: [StudyParticipant], appendixB: CohortTable,
                      dir: String = "recall/") -> [OutputFile] {
        var out = aggregateFiles(
            strings: strings, stringsTable: StudyTables.strings(strings, ps), appendixB: appendixB, dir: dir)
        for t in RecallRowBlocks.tables {
            let table = t.rows(ps)
            out.append(OutputFile(path: "\(dir)\(t.name).csv", data: RecallRender.csv(table)))
            out.append(OutputFile(path: "\(dir)\(t.name).json", data: json(table)))
        }
        for n in 1...StringSet.count {
            let t = DynamicsTable.table(string: n, ps).table
            out.append(OutputFile(path: dir + "dynamics/string-\(n).csv", data: RecallRender.csv(t)))
        }
        return out
    }

    /// Writes the row-per-participant files (``RecallRowBlocks/tables`` as CSV and JSON,
    /// and the ten dynamics tables) by concatenating each participant's stored blocks
    /// in order, one participant in memory at a time. `blocks(i)` gives participant i's.
    /// `keys` are the dynamics tables' key sequences (``DynamicsKeyCounts``); nil: taken
    /// from the participants' contributions.
    static func stream(participants ps: [StudyParticipant], keys known: DynamicsKeyCounts? = nil,
                       blocks: (Int) throws -> RecallRowBlocks, dir: String, to sink: OutputStreams) throws {
        let keys = known ?? ps.reduce(into: DynamicsKeyCounts()) { $0.add($1.contribution) }
        try stream(count: ps.count, keys: keys, blocks: blocks, dir: dir, to: sink)
    }

    /// ``stream(participants:keys:blocks:dir:to:)`` of `count` participants whose
    /// dynamics key sequences are folded into `keys`.
    ///
    /// Two workers fill the files at once, each reading every participant's blocks itself:
    /// one the first table's JSON twin (`entries.json`, about 60 % of these files' bytes),
    /// the other every other file. The summary runs after every unit, so one worker alone
    /// left a core idle (docs/perf-study.md, "the study summary's files on two cores").
    /// Each file gets the same bytes in the same order as one pass would write; files are
    /// opened and finished in the same order. `RecallRowBlocksTests` compares the result
    /// with the whole-table writers.
    static func stream(count: Int, keys known: DynamicsKeyCounts,
                       blocks: (Int) throws -> RecallRowBlocks, dir: String, to sink: OutputStreams) throws {
        let tables = RecallRowBlocks.tables
        var csv: [OutputFileStream] = [], json: [OutputFileStream] = [], dyn: [OutputFileStream] = []
        for t in tables {
            let empty = RecallTableStream(header: t.rows([]).header)
            let c = try sink.open("\(dir)\(t.name).csv"); try c.append(empty.csvData); csv.append(c)
            let j = try sink.open("\(dir)\(t.name).json"); try j.append([0x5B]); json.append(j)   // [
        }
        // Each dynamics table's columns: its string's most common key sequence.
        let keys = known.mostCommon
        for n in 1...StringSet.count {
            let d = try sink.open(dir + "dynamics/string-\(n).csv")
            try d.append(RecallTableStream(header: DynamicsTable.header(keys: keys[n - 1] ?? []), json: false).csvData)
            dyn.append(d)
        }
        // Worker 0: json[0]; worker 1: every CSV, json[1...] and the dynamics tables.
        // Each returns which of its JSON arrays got a row.
        let parts: [Result<[Bool], Error>] = parallelMap([0, 1]) { part in
            Result {
                var hasRows = Array(repeating: false, count: tables.count)
                for i in 0..<count {
                    let b = try blocks(i)
                    for k in (part == 0 ? 0..<1 : 1..<tables.count) where !b.json[k].isEmpty {
                        if hasRows[k] { try json[k].append([0x2C]) }   // ,
                        try json[k].append(b.json[k])
                        hasRows[k] = true
                    }
                    guard part == 1 else { continue }
                    for k in tables.indices { try csv[k].append(b.csv[k]) }
                    for d in b.dynamics where d.string >= 1 && d.string <= StringSet.count
                        && keys[d.string - 1] == d.keys {
                        try dyn[d.string - 1].append(d.csv)
                    }
                }
                return hasRows
            }
        }
        let first = try parts[0].get(), rest = try parts[1].get()
        for k in tables.indices {
            let hasRows = k == 0 ? first[0] : rest[k]
            try json[k].append(hasRows ? [0x0A, 0x5D, 0x0A] : [0x5D, 0x0A])   // "\n]\n" or "]\n" after "["
            try sink.finish(csv[k]); try sink.finish(json[k])
        }
        for d in dyn { try sink.finish(d) }
    }

    /// A table as a JSON array of objects keyed by the CSV header (numbers as numbers,
    /// `True`/`False` as booleans, empty cells as null), deterministic bytes.
    static func json(_ t: RecallStudy.Table) -> Data {
        let rows: [JSONValue] = t.rows.map { r in
            var o: [String: JSONValue] = [:]
            for (k, c) in zip(t.header, r) {
                switch c {
                case .flag(let b): o[k] = .bool(b)
                case .text(let s): o[k] = .string(s)
                case .int(let n): o[k] = .int(n)
                case .number(let d): o[k] = .number(d)
                case .empty: o[k] = .null
                }
            }
            return .object(o)
        }
        return JSONValue.array(rows).data
    }

    /// A cell written as a number in the Appendix B CSVs: an optional `-`, digits and
    /// an optional fraction — nothing else that `Double()` accepts (`-inf`,
    /// `-nan(SUM)`, `-0x1p4` stay text and are neutralised like every text cell).
    static func isPlainNumber(_ s: String) -> Bool {
        var u = Substring(s).utf8[...]
        if u.first == 0x2D { u = u.dropFirst() }
        guard let f = u.first, (0x30...0x39).contains(f) else { return false }
        var dot = false, digitsAfterDot = 0
        for b in u {
            if b == 0x2E { if dot { return false }; dot = true; continue }
            guard (0x30...0x39).contains(b) else { return false }
            if dot { digitsAfterDot += 1 }
        }
        return !dot || digitsAfterDot > 0
    }
}

/// Each dynamics table's key sequence (``DynamicsTable/mostCommon(string:_:)`` of every
/// string), counted one participant at a time: the summary folds each contribution's
/// key sequences in as it decodes the records and then drops them, instead of holding
/// every participant's sequences (the largest decoded part of a record: about 3 KB a
/// participant, 6 MB of a clean build's peak at 2,000). Folding in unit order gives
/// exactly `mostCommon`'s answer: the same sums, and ties go to the sequence seen first
/// (`DynamicsKeyCountsTests`).
struct DynamicsKeyCounts {
    private var counts = Array(repeating: [[String]: Int](), count: StringSet.count)
    private var firstSeen = Array(repeating: [[String]](), count: StringSet.count)

    /// Adds one participant's sequences (participants in unit order).
    mutating func add(_ c: StudyContribution) {
        for s in c.sequences where s.string >= 1 && s.string <= StringSet.count {
            let i = s.string - 1
            if counts[i][s.keys] == nil { firstSeen[i].append(s.keys) }
            counts[i][s.keys, default: 0] += s.count
        }
    }

    /// Per string (index 0 = string 1): its most common key sequence, nil for none.
    var mostCommon: [[String]?] {
        (0..<StringSet.count).map { i in
            let most = counts[i].values.max() ?? 0
            return firstSeen[i].first { counts[i][$0]! == most }
        }
    }
}
