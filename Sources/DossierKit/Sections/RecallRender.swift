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
        let participant = CSVWriter.EncodedField(log.participant)
        RawData.forEachRow(log: log, result: result, strings: strings) { w.rawRow($0, participant: participant) }
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

extension CSVWriter {
    /// One row of raw.csv (columns A–K). A method, so the row's eleven fields are one
    /// access to the writer: written from the closure of `RawData.forEachRow`, each
    /// field was a dynamically checked access to the captured writer (3 % of a study build).
    ///
    /// Per column: B is the log's participant, the same on every row (`participant`,
    /// encoded once); D (page names, `Entry 3`) and H (`True`/`False`) are fixed words
    /// that never need quoting; E, F, G, I, J and K (K has a touch's target) hold text
    /// from the log and take the full text-field rule.
    mutating func rawRow(_ r: RawRow, participant: EncodedField) {
        numberField(r.time)
        field(participant)
        if let n = r.string { numberField(n) } else { emptyField() }
        plainField(r.phase)
        optionalText(r.key)
        optionalText(r.entered)
        textField(r.target)
        if let c = r.correct { plainField(c ? "True" : "False") } else { emptyField() }
        optionalText(r.touch)
        optionalText(r.fields)
        textField(r.event)
        endRecord()
    }

    private mutating func optionalText(_ s: String?) {
        if let s { textField(s) } else { emptyField() }
    }
}
