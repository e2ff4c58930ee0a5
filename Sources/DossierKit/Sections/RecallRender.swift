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

    /// raw.csv written as its rows are made: the same bytes as `csv(RawData.table(…))`
    /// (`RecallRenderTests`) without a table of ≈ 1,500 rows of cells per participant.
    static func rawCSV(log: SessionLog, result: ParticipantResult, strings: StringSet) -> Data {
        var w = CSVWriter(header: RawData.header)
        func text(_ s: String?) { if let s { w.textField(s) } else { w.emptyField() } }
        RawData.forEachRow(log: log, result: result, strings: strings) { r in
            w.numberField(r.time)
            w.textField(r.participant)
            if let n = r.string { w.numberField(n) } else { w.emptyField() }
            w.textField(r.phase)
            text(r.key)
            text(r.entered)
            w.textField(r.target)
            text(r.correct.map { $0 ? "True" : "False" })
            text(r.touch)
            text(r.fields)
            w.textField(r.event)
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

    static func seconds(_ ms: Int?) -> String { ms.map(seconds(ms:)) ?? "—" }

    /// `formatSeconds(ms / 1000)` (`%.2f`, trailing zeros removed) from integer
    /// arithmetic: a study page shows thousands of these and `String(format:)` was 2 %
    /// of a study build. A millisecond count ending in 5 is a tie whose rounding
    /// depends on the binary value of ms / 1000, so it keeps the printf path; every
    /// other one is at least 1 ms from a tie, far beyond a double's error
    /// (`RecallRenderTests`).
    static func seconds(ms: Int) -> String {
        guard ms >= 0, ms < 1_000_000_000_000, ms % 10 != 5 else { return formatSeconds(Double(ms) / 1000) }
        return DecimalText.hundredths(Int64((ms + 5) / 10))
    }
    static func seconds(_ s: Double?) -> String { s.map(formatSeconds) ?? "—" }
    static func ms(_ d: Double?) -> String { d.map { JSONValue.formatNumber(($0 * 10).rounded() / 10) } ?? "—" }
    static func yes(_ b: Bool) -> String { b ? "yes" : "no" }
    /// A duration for reading (`19 min 04 s`, docs/design-system.md); CSV/JSON keep ms.
    static func duration(_ ms: Int?) -> String { ms.map { ValueFormat.duration(Double($0) / 1000) } ?? "—" }
}
