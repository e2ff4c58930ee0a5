import Foundation
import RecallStudy
import Render

/// The study-wide data files of the recall summary (docs/recall-study-data.md): each
/// table as CSV and as JSON with the same fields.
enum RecallStudyFiles {
    /// The files of one study (or of one string set's participants) in `dir`.
    static func files(strings: StringSet, participants ps: [StudyParticipant], appendixB: CohortTable,
                      dir: String = "recall/") -> [OutputFile] {
        var out: [OutputFile] = []
        func both(_ name: String, _ t: RecallStudy.Table) {
            out.append(OutputFile(path: "\(dir)\(name).csv", data: RecallRender.csv(t)))
            out.append(OutputFile(path: "\(dir)\(name).json", data: json(t)))
        }
        // The tables with a row per participant (or per entry) are written one
        // participant at a time: see RecallTableStream.
        func streamed(_ name: String, _ table: ([StudyParticipant]) -> RecallStudy.Table) {
            var s = RecallTableStream(header: table([]).header)
            for p in ps { s.append(table([p]).rows) }
            out.append(OutputFile(path: "\(dir)\(name).csv", data: s.csvData))
            out.append(OutputFile(path: "\(dir)\(name).json", data: s.jsonData))
        }
        streamed("entries", StudyTables.entries)
        streamed("recall", StudyTables.recall)
        both("strings", StudyTables.strings(strings, ps))
        streamed("study-table", StudyTables.tidyStudy)
        both("study-strings", StudyTables.studyColumns(strings))
        out.append(OutputFile(path: dir + "study-table-appendix-b.csv", data: RecallRender.csv(appendixB.rows())))
        streamed("participants", StudyTables.participants)
        for n in 1...StringSet.count {
            let t = DynamicsTable.table(string: n, ps).table
            out.append(OutputFile(path: dir + "dynamics/string-\(n).csv", data: RecallRender.csv(t)))
        }
        return out
    }

    /// A table as a JSON array of objects keyed by the CSV header (numbers as numbers,
    /// `True`/`False` as booleans, empty cells as null), deterministic bytes.
    static func json(_ t: RecallStudy.Table) -> Data {
        let rows: [JSONValue] = t.rows.map { r in
            var o: [String: JSONValue] = [:]
            for (k, c) in zip(t.header, r) {
                switch c {
                case .text("True"): o[k] = .bool(true)
                case .text("False"): o[k] = .bool(false)
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
