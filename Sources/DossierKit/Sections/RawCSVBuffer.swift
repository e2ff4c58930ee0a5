#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

// raw.csv's rows written straight into the file's buffer (docs/perf-study.md, "Issue #45,
// raw.csv rows and the participant's JSON written in place"): a `CSVFieldSink` of this
// module, so `rawFields` is specialised for it and every field writer is inlined into the
// row — no scratch record per row and its append, no call into `Render` per field. Each
// field writes the bytes `CSVWriter`'s method of the same name writes; a text field that
// is not written as it is (quotes, a leading `'`, a control character replaced) takes
// the bytes `CSVWriter.EncodedField` makes of it, the writer's own rule. The plain twin is
// `RecallRender.rawCSVByRows` (`RawCSVDirectTwinTests`, `RawCSVBufferTwinTests`).

/// A growing byte buffer written a CSV field at a time. Not a value to copy: one owner
/// writes it (`inout`) and ends it with ``data()``, which hands its memory to the `Data`.
struct RawCSVBuffer: CSVFieldSink, ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Whether the current record has a field yet (the next one needs a comma).
    private var inRecord = false

    /// A buffer of `capacity` bytes, starting with `start` (the header, and the
    /// byte-order mark when there is one).
    init(capacity: Int, start: Data) {
        self.capacity = max(capacity, start.count, 64)
        base = malloc(self.capacity)!.assumingMemoryBound(to: UInt8.self)
        start.withUnsafeBytes { b in
            if let p = b.baseAddress { UnsafeMutableRawPointer(base).copyMemory(from: p, byteCount: b.count) }
        }
        count = start.count
    }

    deinit { free(base) }

    /// The bytes written, copied into a `Data` of their size; the buffer is freed at
    /// once. (Handing the buffer itself to the `Data`, `bytesNoCopy`, kept the generous
    /// buffer alive until the file was written and tripled the build's page faults,
    /// 3,800 → 10,000–12,000 at 300 participants: more system time than the copy saves.
    /// Cutting it to its bytes first with `realloc` and then handing it over, tried in
    /// issue #45's CSV and output pass, was worse: 3,700 → 34,000–41,000 page faults and
    /// +0.06 s of system time at 300 participants; probably because glibc serves a
    /// buffer this large (≈ 0.5 MB) from a mapping of its own, which, freed whole, raises
    /// the allocator's threshold for such mappings, so the next participant's buffer
    /// comes from the heap, already faulted in, while a buffer cut first stays a new
    /// mapping, faulted in page by page.)
    consuming func data() -> Data {
        Data(bytes: base, count: count)
    }

    /// Makes room for `n` more bytes.
    @inline(__always) private mutating func room(_ n: Int) {
        if capacity - count < n { grow(n) }
    }

    @inline(never) private mutating func grow(_ n: Int) {
        capacity = max(capacity * 2, count + n)
        base = realloc(base, capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    /// A comma before every field but the record's first (room for it made by the caller).
    @inline(__always) private mutating func separate() {
        if inRecord { base[count] = 0x2C; count += 1 }
        inRecord = true
    }

    /// A field's bytes after its comma.
    @inline(__always) private mutating func field(_ b: UnsafeBufferPointer<UInt8>) {
        room(b.count + 1)
        separate()
        if let from = b.baseAddress { ByteWriting.copySmall(from, to: base + count, count: b.count) }
        count += b.count
    }

    @inline(__always) mutating func emptyField() {
        room(1)
        separate()
    }

    @inline(__always) mutating func numberField(_ i: Int) {
        room(22)
        separate()
        appendDigits(i)
    }

    /// `CSVWriter.numberField(Double)`'s bytes (not a column of raw.csv: the study's
    /// tables, ``TableRowsCSV``). A whole number is written as its integer; whole
    /// hundredths and thousandths (`DecimalText.exactHundredths`/`exactThousandths`'s
    /// rule, repeated here so it is inlined: nearly every `Double` cell) have their digits
    /// written in place; any other value takes the writer's own bytes
    /// (``numberFieldByWriter(_:)``, the plain twin).
    @inline(__always) mutating func numberField(_ d: Double) {
        if abs(d) < 9_007_199_254_740_992, Double(Int64(d)) == d { return numberField(Int(d)) }
        if let k = Self.exactMultiple(d, of: 100) { return fixedField(k, places: 2) }
        if let k = Self.exactMultiple(d, of: 1000) { return fixedField(k, places: 3) }
        numberFieldByWriter(d)
    }

    /// The bytes `CSVWriter.numberField(Double)` writes for `d`, through a writer of its own.
    @inline(never) mutating func numberFieldByWriter(_ d: Double) {
        var w = CSVWriter()
        w.numberField(d)
        w.data.withUnsafeBytes { field($0.bindMemory(to: UInt8.self)) }
    }

    /// `DecimalText.exactMultiple`: `d · scale` when it is a whole number and
    /// 1 ≤ |d · scale|, |d| < 10⁷; else nil.
    @inline(__always) static func exactMultiple(_ d: Double, of scale: Double) -> Int64? {
        let a = abs(d)
        guard a >= 1 / scale, a < 1e7 else { return nil }
        let k = d * scale
        let r = Int64(k)
        return Double(r) == k ? r : nil
    }

    /// `DecimalText.withFixed(k, places:)`'s digits as a field (`k` ≠ 0, |k| < 10¹⁰):
    /// the sign, the whole part, then the point and the fraction without its trailing
    /// zeros when it is not 0.
    @inline(__always) private mutating func fixedField(_ k: Int64, places: Int) {
        room(32)
        separate()
        if k < 0 { base[count] = 0x2D; count += 1 }
        let scale: UInt64 = places == 2 ? 100 : 1000
        let m = k.magnitude
        var frac = m % scale
        count += ByteWriting.writeDecimal(Int(m / scale), to: base + count)
        guard frac != 0 else { return }
        var shown = places
        while frac % 10 == 0 { frac /= 10; shown -= 1 }
        let dot = count
        base[dot] = 0x2E                                        // "."
        var i = dot + shown
        while i > dot { base[i] = 0x30 + UInt8(frac % 10); frac /= 10; i -= 1 }
        count = dot + shown + 1
    }

    /// `CSVWriter.appendDigits`: a `-` when negative, then the digits.
    @inline(__always) mutating func appendDigits(_ i: Int) {
        room(21)
        count += ByteWriting.writeDecimal(i, to: base + count)
    }

    @inline(__always) mutating func appendToField(_ byte: UInt8) {
        room(1)
        base[count] = byte
        count += 1
    }

    @inline(__always) mutating func encodedField(_ encoded: UnsafeBufferPointer<UInt8>) { field(encoded) }

    @inline(__always) mutating func plainField(_ word: StaticString) {
        word.withUTF8Buffer { field($0) }
    }

    /// `CSVWriter.textField`: the text's bytes as they are when
    /// `CSVWriter.writesAsItIs` says so (read where they are, no copy of the `String`),
    /// else ``quotedTextField(_:)``.
    @inline(__always) mutating func textField(_ raw: String) {
        let done = raw.utf8.withContiguousStorageIfAvailable { b -> Bool in
            guard CSVWriter.writesAsItIs(b, neutraliseFormulas: true) else { return false }
            field(b)
            return true
        }
        if done == true { return }
        quotedTextField(raw)
    }

    /// `CSVWriter.textField`'s bytes for a text it does not write as it is, written in
    /// place when the text holds no control character: the rule of the writer's
    /// `FieldShape(scanning:)` and `write(_:_:)` — quotes around a text holding `,`, `"`,
    /// LF or CR or starting or ending with a space, each `"` doubled; a `'` first when
    /// the text starts with `=`, `+`, `-`, `@`, TAB or CR. raw.csv's touch column
    /// (`x,y`) is such a text on every touch; each was a `CSVWriter` and an array made by
    /// `CSVWriter.EncodedField` (≈ 1,700 instructions). A text with a control character
    /// (replaced for display), and any other, takes the writer's bytes
    /// (``textFieldByWriter(_:)``, the plain twin).
    @inline(never) mutating func quotedTextField(_ raw: String) {
        var raw = raw
        let done = raw.withUTF8 { b -> Bool in
            guard let f = b.first, let l = b.last else { return false }
            var needsQuotes = f == 0x20 || l == 0x20, quotes = 0, afterC2 = false
            for c in b {
                if c == 0x2C || c == 0x0A || c == 0x0D { needsQuotes = true }
                if c == 0x22 { needsQuotes = true; quotes += 1 }
                let control = (c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) || c == 0x7F
                if control || (afterC2 && c >= 0x80 && c <= 0x9F) {
                    return false
                }
                afterC2 = c == 0xC2
            }
            let neutralise = f == 0x3D || f == 0x2B || f == 0x2D || f == 0x40 || f == 0x09 || f == 0x0D
            room(b.count + quotes + 4)
            separate()
            if needsQuotes { base[count] = 0x22; count += 1 }
            if neutralise { base[count] = 0x27; count += 1 }
            if quotes == 0 {
                UnsafeMutableRawPointer(base + count).copyMemory(from: b.baseAddress!, byteCount: b.count)
                count += b.count
            } else {
                for c in b {
                    if c == 0x22 { base[count] = 0x22; count += 1 }
                    base[count] = c
                    count += 1
                }
            }
            if needsQuotes { base[count] = 0x22; count += 1 }
            return true
        }
        if !done { textFieldByWriter(raw) }
    }

    /// The bytes `CSVWriter.EncodedField` (the writer's `textField`) makes of `raw`.
    @inline(never) mutating func textFieldByWriter(_ raw: String) {
        CSVWriter.EncodedField(raw).bytes.withUnsafeBufferPointer { field($0) }
    }

    /// `n` bytes written earlier at `at` (whole fields, each led by its comma: a key
    /// row's columns B–D, ``RawCSVKeyRows``), copied again after the record's first
    /// field; the next field gets its comma.
    @inline(__always) mutating func fieldsAgain(at: Int, count n: Int) {
        room(n)
        ByteWriting.copySmall(UnsafePointer(base + at), to: base + count, count: n)
        count += n
        inRecord = true
    }

    /// The record's last fields, each led by its comma, and its CR LF, as one piece
    /// (a key row's columns H–K, ``RawCSVKeyRows/end(_:_:)``).
    @inline(__always) mutating func endRecord(with last: StaticString) {
        let n = last.utf8CodeUnitCount
        room(n)
        ByteWriting.copySmall(last.utf8Start, to: base + count, count: n)
        count += n
        inRecord = false
    }

    @inline(__always) mutating func endRecord() {
        room(2)
        base[count] = 0x0D
        base[count + 1] = 0x0A
        count += 2
        inRecord = false
    }
}
