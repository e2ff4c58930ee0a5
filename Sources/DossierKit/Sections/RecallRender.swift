import Foundation
import RecallStudy
import Render

// MARK: - CSV output

enum RecallRender {
    /// raw.csv and rolled-up.csv, field by field through ``CSVWriter`` (tens of
    /// thousands of cells per participant: no Cell array per row).
    static func csv(_ t: Table) -> Data {
        var w = CSVWriter(header: t.header)
        for r in t.rows {
            for c in r {
                switch c {
                case .text(let s): w.textField(s)
                case .int(let n): w.numberField(n)
                case .number(let d): w.numberField(d)
                case .empty: w.emptyField()
                }
            }
            w.endRecord()
        }
        return w.data
    }

    /// Text rows (the Appendix B layout): numbers stay as written.
    static func csv(_ rows: [[String]]) -> Data {
        var w = CSVWriter()
        for r in rows {
            w.append(r.map { s -> CSVWriter.Cell in
                if s.isEmpty { return .empty }
                return RecallStudyFiles.isPlainNumber(s) ? .number(s) : .text(s)
            })
        }
        return w.data
    }

    static func participantsCSV(_ all: [StudyParticipant]) -> Data {
        var w = CSVWriter(header: ["participant", "source_file", "source", "complete", "session_total_ms", "last_event_ms", "warnings",
                                   "entries", "incorrect_entries", "rekeys", "deletions", "verify_failures",
                                   "recall_fields", "strings_recalled", "median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms"])
        for sp in all {
            let p = sp.summary
            w.append([.text(p.participant), .text(sp.sourceFile), .text(p.source.rawValue), .text(p.complete ? "True" : "False"),
                      CSVWriter.number(p.sessionTotalMs), CSVWriter.number(p.lastEventMs), CSVWriter.number(p.warnings),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.entries }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.incorrectEntries }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.rekeys }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.deletions }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.verifyFailures }),
                      CSVWriter.number(p.recallFields), .text(p.recalled.map(String.init).joined(separator: " ")),
                      CSVWriter.number(p.medianHold), CSVWriter.number(p.medianDownDown),
                      CSVWriter.number(p.medianUpDown), CSVWriter.number(p.medianUpUp)])
        }
        return w.data
    }

    static func seconds(_ ms: Int?) -> String { ms.map { formatSeconds(Double($0) / 1000) } ?? "—" }
    static func seconds(_ s: Double?) -> String { s.map(formatSeconds) ?? "—" }
    static func ms(_ d: Double?) -> String { d.map { JSONValue.formatNumber(($0 * 10).rounded() / 10) } ?? "—" }
    static func yes(_ b: Bool) -> String { b ? "yes" : "no" }
}
