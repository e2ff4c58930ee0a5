import Foundation
@testable import RecallStudy
@testable import Render
import SplitMix64
import Testing
@testable import DossierKit

/// A table's rows written as CSV into one buffer (`TableRowsCSV`, through
/// `RawCSVBuffer`) against their plain twin, a `CSVWriter` field by field
/// (`TableRowsCSV.dataByWriter`), and against the path they replace
/// (`CSVWriter.tableRow`): rolled-up.csv, the study's whole CSV files and the CSV half
/// of a participant's row blocks. Edge cells: texts empty, one byte, `é` as one scalar
/// and as e + U+0301, CR LF, `=`/`+` leading a field, quotes, controls, huge; integers
/// at the extremes; doubles whole, hundredths, thousandths, at the bounds of the fast
/// path (0.01, 0.001, 10⁷, 2⁵³) and beyond it, signed zeros, non-finite.
struct TableRowsCSVTwinTests {
    static let doubles: [Double] = RawCSVBufferTwinTests.doubles + [
        0.01, -0.01, 0.001, -0.001, 0.005, -0.005, 0.05, -0.05, 0.0005, 0.009, 0.999, 1.5, -1.5, 2.25, 12.34,
        -12.34, 123.456, -123.456, 1.001, 10.1, 10.01, 10.001, 100.1, 1000.5, 9_999_999.99, 9_999_999.999,
        10_000_000, 10_000_000.5, 1e7 - 0.001, 1e7 + 0.01, 9_007_199_254_740_991, 9_007_199_254_740_992,
        -9_007_199_254_740_992, 1.0000001, 0.1, 0.2, 0.3, 1e-7, 123_456_789.123, 4.2e9, -4.2e9,
        Double.leastNormalMagnitude, Double.greatestFiniteMagnitude, -.nan,
    ]
    static let ints = RawCSVBufferTwinTests.ints

    static var edgeCells: [TableCell] {
        RawCSVBufferTwinTests.edgeTexts.map { .text($0) } + ["=SUM(A1)", "+1", "-x", "@a", "a\"b\"", "\"q\""]
            .map { .text($0) }
            + ints.map { .int($0) } + doubles.map { .number($0) } + [.flag(true), .flag(false), .empty]
    }

    /// Both writers' bytes, and the bytes of the path they replace.
    static func check(header: [String]?, rows: [[TableCell]], bom: Bool, _ what: String, _ issues: inout [String]) {
        let fast = TableRowsCSV.data(header: header, rows: rows, bom: bom)
        if fast != TableRowsCSV.dataByWriter(header: header, rows: rows, bom: bom) { issues.append(what) }
        var w = CSVWriter(header: header, includeBOM: bom)
        for r in rows { w.tableRow(r) }
        if fast != w.data { issues.append(what + " (tableRow)") }
    }

    /// Every edge cell alone, first and last in a row, after an empty cell, twice; all
    /// cells in one wide row; no rows; one empty row; with and without a header of the
    /// edge texts and the byte-order mark.
    @Test func edgeCellsAsTheWriterWritesThem() {
        var issues: [String] = []
        let cells = Self.edgeCells
        for (k, c) in cells.enumerated() {
            let rows: [[TableCell]] = [[c], [c, .int(1)], [.text("a"), c], [.empty, c], [c, c, .empty, c]]
            Self.check(header: nil, rows: rows, bom: false, "cell \(k) \(String(describing: c).prefix(30))", &issues)
        }
        let headers: [[String]?] = [nil, [], ["a"], RawCSVBufferTwinTests.edgeTexts]
        for header in headers {
            for bom in [false, true] {
                let h = "header \(header?.count ?? -1) bom \(bom)"
                Self.check(header: header, rows: [], bom: bom, "no rows, " + h, &issues)
                Self.check(header: header, rows: [[]], bom: bom, "empty row, " + h, &issues)
                Self.check(header: header, rows: [cells, cells.reversed()], bom: bom, "wide rows, " + h, &issues)
            }
        }
        #expect(issues.isEmpty, "\(issues.count) tables differ: \(issues.prefix(8))")
    }

    /// 300 random tables of edge cells (0–40 rows of 0–12 cells): the buffer starts at
    /// 128 bytes a row and grows mid-row on the huge texts.
    @Test func randomTablesAsTheWriterWritesThem() {
        var rng = SplitMix64(seed: 45_2026)
        let cells = Self.edgeCells
        var issues: [String] = []
        for n in 0..<300 {
            let rows = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                (0..<Int.random(in: 0...12, using: &rng)).map { _ in cells.randomElement(using: &rng)! }
            }
            Self.check(header: n % 3 == 0 ? ["x", "y"] : nil, rows: rows, bom: n % 2 == 0, "table \(n)", &issues)
        }
        #expect(issues.isEmpty, "\(issues.count) tables differ: \(issues.prefix(8))")
    }

    /// The buffer's `Double` field against the writer's (`numberFieldByWriter`) on
    /// hundredths and thousandths of every sign and size the fast path takes, their
    /// neighbours one ulp away (not multiples: the writer's own path), and random bit
    /// patterns.
    @Test func doublesAsTheWriterWritesThem() {
        var rng = SplitMix64(seed: 7)
        var values: [Double] = Self.doubles
        for _ in 0..<100_000 {
            let k = Int64.random(in: -10_000_000_000...10_000_000_000, using: &rng)
            let d = Double(k) / (Bool.random(using: &rng) ? 100 : 1000)
            values += [d, d.nextUp, d.nextDown]
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        }
        for ms in -3_000...30_000 { values.append(Double(ms) / 1000) }
        var issues = 0
        var first: [Double] = []
        for d in values {
            var a = RawCSVBuffer(capacity: 0, start: Data())
            a.emptyField(); a.numberField(d); a.endRecord()
            var b = RawCSVBuffer(capacity: 0, start: Data())
            b.emptyField(); b.numberFieldByWriter(d); b.endRecord()
            if a.data() != b.data() { issues += 1; if first.count < 8 { first.append(d) } }
        }
        #expect(issues == 0, "\(issues) doubles differ: \(first)")
    }

    /// A text not written as it is, written in place (`quotedTextField`) against the
    /// writer's bytes (`textFieldByWriter`) and against `CSVWriter.textField` through the
    /// buffer's `textField`: 30,000 random texts of commas, quotes, CR, LF, spaces,
    /// formula leads, TAB, C0 and C1 controls, DEL, `é` both ways, `'`, and raw.csv's
    /// touch texts (`x,y`, negative, fractional); plus the edge texts.
    @Test func quotedTextsAsTheWriterWritesThem() {
        let pieces = [",", "\"", "\r", "\n", "\r\n", " ", "=", "+", "-", "@", "\t", "a", "Q9", "é", "e\u{301}",
                      "\u{85}", "\u{C2}", "\u{1}", "\u{7F}", "'", "12", "-3.5", "😀", "\u{FEFF}"]
        var rng = SplitMix64(seed: 2026)
        var texts = RawCSVBufferTwinTests.edgeTexts + ["-12,40", "12,-40", "1.5,2.25", "-0.5,1e+16", "\"", "\"\""]
        for _ in 0..<30_000 {
            let count = Int.random(in: 1...9, using: &rng)
            texts.append((0..<count).map { _ in pieces.randomElement(using: &rng)! }.joined())
        }
        var issues: [String] = []
        var quoted = 0
        for t in texts {
            var a = RawCSVBuffer(capacity: 16, start: Data()), b = RawCSVBuffer(capacity: 16, start: Data())
            a.emptyField(); a.textField(t); a.endRecord()
            var w = CSVWriter()
            w.emptyField(); w.textField(t); w.endRecord()
            if a.data() != w.data { issues.append("textField \(t.prefix(20).debugDescription)") }
            if !Array(t.utf8).withUnsafeBufferPointer({ CSVWriter.writesAsItIs($0, neutraliseFormulas: true) }) {
                quoted += 1
                var c = RawCSVBuffer(capacity: 16, start: Data())
                c.quotedTextField(t); c.quotedTextField(t); c.endRecord()
                b.textFieldByWriter(t); b.textFieldByWriter(t); b.endRecord()
                if c.data() != b.data() { issues.append("quoted \(t.prefix(20).debugDescription)") }
            }
        }
        #expect(issues.isEmpty, "\(issues.count) texts differ: \(issues.prefix(8))")
        #expect(quoted > 20_000)
    }

    /// Simulated participants' row blocks: their CSV as the whole-table writer writes
    /// each table's rows (`RecallTableStream`'s CSV, the path before this one).
    @Test func participantsCSVBlocksAsTheStreamWritesThem() throws {
        for p in try RecallRowBlocksTests.participants(9, seed: 45) {
            let blocks = RecallRowBlocks(p)
            for (i, t) in RecallRowBlocks.tables.enumerated() {
                var s = RecallTableStream(RecallRowBlocks.columns[i], headerRecord: false)
                s.append(t.rows([p]).rows)
                #expect(blocks.csv[i] == s.csvRowsData, "table \(t.name)")
                #expect(blocks.json[i] == s.jsonRowsData, "table \(t.name) (JSON)")
            }
            for d in blocks.dynamics {
                var s = RecallTableStream(.csvOnly, headerRecord: false)
                for t in p.detail.timings where t.string == d.string && t.keys == d.keys {
                    s.append(row: DynamicsTable.row(t, participant: p.summary.participant, sourceFile: p.sourceFile))
                }
                #expect(d.csv == s.csvRowsData, "dynamics \(d.string)")
            }
        }
    }
}
