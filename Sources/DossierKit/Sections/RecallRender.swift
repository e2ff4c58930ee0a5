#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

// MARK: - CSV output

enum RecallRender {
    /// raw.csv and rolled-up.csv, field by field through ``CSVWriter`` (tens of
    /// thousands of cells per participant: no Cell array per row). `bom`: begin with
    /// the UTF-8 byte-order mark (the build then adds none: no copy of the file).
    /// The rows go into one buffer with every field writer inlined (``TableRowsCSV``;
    /// the plain twin is ``TableRowsCSV/dataByWriter(header:rows:bom:)``).
    static func csv(_ t: Table, bom: Bool = false) -> Data {
        TableRowsCSV.data(header: t.header, rows: t.rows, bom: bom)
    }

    /// raw.csv written as its rows are made, straight from the log's events
    /// (``RawCSVDirect``): the same bytes as `csv(RawData.table(…))` (`RecallRenderTests`)
    /// and as ``rawCSVByRows(log:result:strings:bom:)`` (`RawCSVDirectTwinTests`), without
    /// a table of ≈ 1,500 rows of cells per participant.
    /// The buffer is sized once, generously: 160 bytes an event and ten rows a page
    /// turn, about three times the file (rows average 56 bytes); a longer file grows as
    /// before. A tight estimate (80 bytes a possible row) measured 6 % more CPU time
    /// (system time) and 3 MB more peak memory at 300 participants, probably because
    /// the allocator then serves the buffer from its heap instead of a mapping of its
    /// own (docs/perf-study.md, round six). `bom` as in ``csv(_:bom:)``.
    static func rawCSV(log: SessionLog, result: ParticipantResult, strings: StringSet, bom: Bool = false) -> Data {
        RawCSVDirect.data(log: log, result: result, strings: strings, bom: bom)
    }

    /// ``rawCSV(log:result:strings:bom:)`` through `RawData.forEachRow`'s rows: the plain
    /// twin of the direct writer (``RawCSVDirect``), kept for the tests.
    static func rawCSVByRows(
        log: SessionLog, result: ParticipantResult, strings: StringSet, bom: Bool = false
    ) -> Data {
        var w = CSVWriter(header: RawData.header, includeBOM: bom)
        w.reserveCapacity(1024 + 160 * (log.events.count + 10 * result.pageTurns.count))
        let words = RawCSVWords(participant: log.participant, strings: strings)
        words.encoded.withUnsafeBufferPointer { encoded in
            RawData.forEachRow(log: log, result: result, strings: strings) { w.rawRow($0, words, encoded) }
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
    /// of a study build. Every count not ending in 5 is at least 1 ms from a tie, far
    /// beyond a double's error. One ending in 5 is a tie in decimal, and `%.2f` rounds
    /// the double `d = ms / 1000` by which side of the tie it lies on: the sign of
    /// `d · 1000 − ms`, which `fma` gives exactly (one rounding keeps a sign and makes
    /// 0 only of 0). On the tie itself (`0.125`, `1.375`: exactly representable) printf
    /// rounds half to even (`RecallRenderTests`).
    static func seconds(ms: Int) -> String {
        guard ms >= 0, ms < 1_000_000_000_000 else { return ValueFormat.minus(formatSeconds(Double(ms) / 1000)) }
        guard ms % 10 == 5 else { return DecimalText.hundredths(Int64((ms + 5) / 10)) }
        let down = Int64(ms / 10)
        let side = (-Double(ms)).addingProduct(Double(ms) / 1000, 1000)   // d · 1000 − ms, fused
        let up = side > 0 || (side == 0 && down % 2 == 1)
        return DecimalText.hundredths(up ? down + 1 : down)
    }
    // Shown numbers (pages and report.md): a negative one with U+2212 (``ValueFormat/minus(_:)``).
    static func seconds(_ s: Double?) -> String { s.map { ValueFormat.minus(formatSeconds($0)) } ?? "—" }
    static func ms(_ d: Double?) -> String {
        d.map { ValueFormat.minus(JSONValue.formatNumber(($0 * 10).rounded() / 10)) } ?? "—"
    }
    static func yes(_ b: Bool) -> String { b ? "yes" : "no" }
    /// A duration for reading (`19 min 04 s`, docs/design-system.md); CSV/JSON keep ms.
    static func duration(_ ms: Int?) -> String { ms.map { ValueFormat.duration(Double($0) / 1000) } ?? "—" }
}

/// The fields of raw.csv that repeat, written without a string per row: the
/// participant (B) and the ten targets (G) encoded once per file as text fields, one
/// after the other in ``encoded``; the page titles (D, `PageKind.titleWord`),
/// `True`/`False` (H) and the event words (K) from static strings (docs/perf-study.md, round six).
struct RawCSVWords {
    /// The participant's field, then string 1's … string 10's.
    let encoded: [UInt8]
    /// Where each field of ``encoded`` ends (index 0: the participant; n: string n).
    private let ends: [Int]

    init(participant: String, strings: StringSet) {
        var bytes = CSVWriter.EncodedField(participant).bytes
        var ends = [bytes.count]
        for s in strings.strings {
            bytes += CSVWriter.EncodedField(s).bytes
            ends.append(bytes.count)
        }
        encoded = bytes
        self.ends = ends
    }

    /// The participant's field in `encoded` (the buffer of ``encoded``).
    func participant(_ encoded: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: encoded[0..<ends[0]])
    }

    /// Column G of a row: string `n`'s field, nil for an empty cell.
    func target(_ n: Int?, _ encoded: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let n, n >= 1, n < ends.count else { return nil }
        return UnsafeBufferPointer(rebasing: encoded[ends[n - 1]..<ends[n]])
    }

    /// Column K of a row, when it is one of the fixed words (touches and buttons, a few
    /// rows per page, are written from their text).
    static func event(_ e: RawEvent) -> StaticString? {
        switch e {
        case .page: return "page"
        case .focus: return "focus"
        case .key(.down): return "down"
        case .key(.up): return "up"
        case .key(.tap): return "tap"
        case .close: return "close"
        case .pageTurn: return "page-turn"
        case .touch, .button: return nil
        }
    }
}

extension CSVWriter {
    /// One row of raw.csv, written at once (``record(capacity:_:)``) when every field
    /// is plain, as nearly every row is; else field by field.
    mutating func rawRow(_ r: RawRow, _ words: RawCSVWords, _ encoded: UnsafeBufferPointer<UInt8>) {
        let written = record(capacity: 512) { f in
            f.rawRowFields(r, words, encoded)
            return f.fits
        }
        if !written { rawRowFields(r, words, encoded) }
    }
}

extension CSVFieldSink where Self: ~Copyable {
    /// The fields of one row of raw.csv (columns A–K). A method, so the row's eleven
    /// fields are one access to the writer: written from the closure of
    /// `RawData.forEachRow`, each field was a dynamically checked access to the
    /// captured writer (3 % of a study build, round five).
    ///
    /// Per column: B and G come encoded (``RawCSVWords``, `encoded` its bytes); D, H
    /// and K (but touches and buttons) are fixed words that never need quoting (checked
    /// in debug builds); E, F, I, J and the other K hold text from the log and take the
    /// full text-field rule.
    mutating func rawRowFields(_ r: RawRow, _ words: RawCSVWords, _ encoded: UnsafeBufferPointer<UInt8>) {
        numberField(r.time)
        encodedField(words.participant(encoded))
        if let n = r.string { numberField(n) } else { emptyField() }
        if let page = r.phase.page {
            plainField(page.titleWord)
            if let n = r.phase.field { appendToField(0x20); appendDigits(n) }
        } else {
            emptyField()
        }
        optionalText(r.key)
        optionalText(r.entered)
        if let g = words.target(r.target, encoded) { encodedField(g) } else { emptyField() }
        if let c = r.correct { plainField(c ? "True" : "False") } else { emptyField() }
        optionalText(r.touch)
        optionalText(r.fields)
        if let k = RawCSVWords.event(r.event) { plainField(k) } else { textField(r.event.text) }
        endRecord()
    }

    private mutating func optionalText(_ s: String?) {
        if let s { textField(s) } else { emptyField() }
    }
}
