import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// RFC 4180 CSV: fields separated by `,`, records ended by CRLF, UTF-8. A field is
/// quoted when it holds `,`, `"`, CR or LF, or begins or ends with a space; quotes inside
/// are doubled.
///
/// Control characters in text cells other than TAB, CR and LF become U+FFFD
/// (``ControlCharacters/display(_:)``).
///
/// Formula injection: a cell whose text begins with `=`, `+`, `-`, `@`, TAB or CR is
/// prefixed with `'` so spreadsheet programs show it as text (OWASP's advice). Numbers
/// written with ``CSVWriter/number(_:)`` are never neutralised: `-3.5` stays a number.
/// The field-by-field writing of a CSV record, shared by ``CSVWriter`` and a record
/// written at once (``CSVWriter/RecordBytes``), so one function can write a record
/// either way.
public protocol CSVFieldSink: ~Copyable {
    mutating func emptyField()
    mutating func numberField(_ i: Int)
    mutating func numberField(_ d: Double)
    mutating func appendDigits(_ i: Int)
    mutating func appendToField(_ byte: UInt8)
    mutating func encodedField(_ encoded: UnsafeBufferPointer<UInt8>)
    mutating func plainField(_ word: StaticString)
    mutating func textField(_ raw: String)
    mutating func endRecord()
}

public struct CSVWriter: CSVFieldSink, Sendable {
    public enum Cell: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case text(String)
        /// A numeric cell, already formatted (see ``JSONValue/formatNumber(_:)``).
        case number(String)
        case empty

        public init(stringLiteral value: String) { self = .text(value) }
        public init(integerLiteral value: Int) { self = .number(String(value)) }
    }

    public var includeBOM: Bool
    public var neutraliseFormulas: Bool
    private var bytes: [UInt8] = []
    /// Whether the current record has a field yet (the next one needs a comma).
    private var inRecord = false

    /// - Parameters:
    ///   - header: the first record.
    ///   - includeBOM: start with U+FEFF so Excel reads UTF-8 (off by default).
    public init(header: [String]? = nil, includeBOM: Bool = false, neutraliseFormulas: Bool = true) {
        self.includeBOM = includeBOM
        self.neutraliseFormulas = neutraliseFormulas
        if includeBOM { bytes.append(contentsOf: [0xEF, 0xBB, 0xBF]) }
        if let header { append(texts: header) }
    }

    /// Makes room for `n` bytes in all, so a file whose size is known roughly is not
    /// copied into ever larger buffers as it grows.
    public mutating func reserveCapacity(_ n: Int) { bytes.reserveCapacity(n) }

    /// The UTF-8 byte-order mark.
    public static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `data` with a byte-order mark in front when `add` and it has none yet (the
    /// project's `csv: bom:` setting, applied to every CSV output by the build).
    public static func withBOM(_ data: Data, _ add: Bool) -> Data {
        guard add, !data.starts(with: bom) else { return data }
        var out = Data(capacity: data.count + 3)
        out.append(contentsOf: bom)
        out.append(data)
        return out
    }

    /// Whether `s` is a plain decimal number: `-?digits(.digits)?([eE][+-]?digits)?`.
    /// Only such text may be written as a number cell; anything else Swift's `Double()`
    /// also accepts (`-inf`, `nan`, `-nan(SUM)`, `-0x1p4`, `+5`) is text and, when it
    /// begins with `-` or `+`, neutralised like every other text cell.
    public static func isPlainNumber<S: StringProtocol>(_ s: S) -> Bool {
        var it = s.utf8.makeIterator()
        var c = it.next()
        func digits() -> Int {
            var n = 0
            while let d = c, d >= 0x30 && d <= 0x39 { n += 1; c = it.next() }
            return n
        }
        if c == 0x2D { c = it.next() }                          // -
        guard digits() > 0 else { return false }
        if c == 0x2E { c = it.next(); guard digits() > 0 else { return false } }   // .
        if c == 0x65 || c == 0x45 {                             // e E
            c = it.next()
            if c == 0x2B || c == 0x2D { c = it.next() }
            guard digits() > 0 else { return false }
        }
        return c == nil
    }

    /// A cell for text read from an input: a number cell when it is a plain decimal
    /// number (``isPlainNumber(_:)``), empty when empty, else a text cell.
    public static func cell(_ s: String) -> Cell {
        if s.isEmpty { return .empty }
        return isPlainNumber(s) ? .number(s) : .text(s)
    }

    public static func number(_ d: Double?) -> Cell { d.map { .number(JSONValue.formatNumber($0)) } ?? .empty }
    public static func number(_ i: Int?) -> Cell { i.map { .number(String($0)) } ?? .empty }

    /// Appends one record.
    public mutating func append(_ cells: [Cell]) {
        for c in cells {
            switch c {
            case .empty: emptyField()
            case .number(let n): numberField(n)
            case .text(let t): textField(t)
            }
        }
        endRecord()
    }

    /// Appends a record of text cells.
    public mutating func append(texts: [String]) {
        for t in texts { textField(t) }
        endRecord()
    }

    // MARK: Field by field (no Cell array per record: tables with 10⁵ cells)

    /// A text field, quoted and neutralised as the type documentation says.
    public mutating func textField(_ raw: String) {
        separate()
        // Nearly every field is plain (``FieldShape/plain(_:neutraliseFormulas:)``): its
        // bytes are tested and copied from one contiguous view of the string.
        var raw = raw
        let neutralise = neutraliseFormulas
        let done = raw.withUTF8 { b -> Bool in
            guard let shape = FieldShape.plain(b, neutraliseFormulas: neutralise) else { return false }
            if shape.needsQuotes || shape.neutralise { return false }
            bytes.append(contentsOf: b)
            return true
        }
        if done { return }
        let shape = FieldShape(scanning: raw, neutraliseFormulas: neutraliseFormulas)
        if shape.hasControl {
            let shown = ControlCharacters.display(raw)
            write(shown, FieldShape(shown, neutraliseFormulas: neutraliseFormulas))
        } else {
            write(raw, shape)
        }
    }

    /// What one pass over a text field's bytes tells (raw.csv has tens of thousands of
    /// fields per participant: one scan instead of three).
    @usableFromInline struct FieldShape {
        var needsQuotes = false, neutralise = false
        /// A character ``ControlCharacters/display(_:)`` replaces (the byte test of
        /// ``ControlCharacters/displayUTF8(_:)``).
        var hasControl = false

        init(_ s: String, neutraliseFormulas: Bool) {
            var s = s
            if let plain = s.withUTF8({ Self.plain($0, neutraliseFormulas: neutraliseFormulas) }) {
                self = plain
            } else {
                self = FieldShape(scanning: s, neutraliseFormulas: neutraliseFormulas)
            }
        }

        /// A byte that can make a field need quotes or hold a control character
        /// wherever it stands (a C1 control is 0xC2 then 0x80–0x9F).
        @inlinable @inline(__always) static func mayMatter(_ b: UInt8) -> Bool {
            b < 0x20 || b == 0x2C || b == 0x22 || b == 0x7F || b == 0xC2
        }

        /// The shape of a field without such bytes (nearly every field of raw.csv), where
        /// only the first and last byte count; nil for any other field. One test per
        /// byte instead of the full scan's dozen: the scan was 6 % of a study build.
        static func plain(_ b: UnsafeBufferPointer<UInt8>, neutraliseFormulas: Bool) -> FieldShape? {
            guard let f = b.first, let l = b.last else { return FieldShape() }
            if b.contains(where: mayMatter) { return nil }
            var shape = FieldShape()
            shape.neutralise = neutraliseFormulas && (f == 0x3D || f == 0x2B || f == 0x2D || f == 0x40)
            shape.needsQuotes = f == 0x20 || l == 0x20
            return shape
        }

        private init() {}

        /// Written as it is: no quotes, no `'`, nothing replaced.
        var isPlain: Bool { !needsQuotes && !neutralise && !hasControl }

        /// The full scan, for any field (the reference the plain path is tested against).
        init(scanning s: String, neutraliseFormulas: Bool) {
            var first = true, afterC2 = false
            var last: UInt8 = 0
            for b in s.utf8 {
                if first {
                    neutralise =
                        neutraliseFormulas
                        && (b == 0x3D || b == 0x2B || b == 0x2D || b == 0x40 || b == 0x09 || b == 0x0D)
                    if b == 0x20 { needsQuotes = true }
                    first = false
                }
                if b == 0x2C || b == 0x22 || b == 0x0A || b == 0x0D { needsQuotes = true }
                if (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F || (afterC2 && b >= 0x80 && b <= 0x9F)
                {
                    hasControl = true
                }
                afterC2 = b == 0xC2
                last = b
            }
            if last == 0x20 { needsQuotes = true }
        }
    }

    private mutating func write(_ raw: String, _ shape: FieldShape) {
        if shape.needsQuotes { bytes.append(0x22) }
        if shape.neutralise { bytes.append(0x27) }
        if shape.needsQuotes {
            for b in raw.utf8 {
                if b == 0x22 { bytes.append(0x22) }
                bytes.append(b)
            }
            bytes.append(0x22)
        } else {
            bytes.append(contentsOf: raw.utf8)
        }
    }

    /// A text field of a column whose values never need quoting, neutralising or
    /// replacing (fixed words such as `True`, page names, `Entry 3`): written as it is,
    /// without the field-shape test. Debug builds check the claim.
    public mutating func plainField(_ word: String) {
        assert(
            FieldShape(scanning: word, neutraliseFormulas: true).isPlain,
            "not a plain CSV field: \(word.debugDescription)")
        separate()
        var word = word
        word.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// ``plainField(_:)`` for a static word (no string, no reference count).
    public mutating func plainField(_ word: StaticString) {
        assert(
            FieldShape(scanning: word.description, neutraliseFormulas: true).isPlain, "not a plain CSV field: \(word)")
        separate()
        word.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Bytes of a field already encoded (``EncodedField``'s bytes, or a part of a
    /// buffer of them).
    public mutating func encodedField(_ encoded: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(contentsOf: encoded)
    }

    /// A byte appended to the field just written (it must keep the field plain, as a
    /// space inside `Entry 3` does).
    public mutating func appendToField(_ byte: UInt8) { bytes.append(byte) }

    /// An integer's digits (after a `-` when negative) appended to the field just written.
    public mutating func appendDigits(_ i: Int) { DecimalDigits.append(i, to: &bytes) }

    /// A text field encoded once and written many times (a column repeating one value,
    /// such as raw.csv's participant): the bytes ``textField(_:)`` writes for it.
    public struct EncodedField: Sendable {
        /// The field's bytes as ``textField(_:)`` writes them.
        public let bytes: [UInt8]
        public init(_ text: String, neutraliseFormulas: Bool = true) {
            var w = CSVWriter(neutraliseFormulas: neutraliseFormulas)
            w.textField(text)
            bytes = w.bytes
        }
    }

    public mutating func field(_ encoded: EncodedField) {
        separate()
        bytes.append(contentsOf: encoded.bytes)
    }

    /// A number already formatted: written as it is.
    /// Text that is not a plain decimal number (``isPlainNumber(_:)``) is written as a
    /// text field instead, so `-inf` or `-nan(SUM)` can never reach a spreadsheet as a
    /// formula-looking cell.
    public mutating func numberField(_ formatted: String) {
        guard CSVWriter.isPlainNumber(formatted) else { return textField(formatted) }
        separate()
        bytes.append(contentsOf: formatted.utf8)
    }

    /// An integer (always a plain number: no check needed), its digits written straight
    /// into the output (raw.csv has thousands per participant; `String(i)` allocated each).
    public mutating func numberField(_ i: Int) {
        separate()
        appendDigits(i)
    }
    public mutating func numberField(_ d: Double) {
        // A whole number (most of raw.csv's and rolled-up.csv's durations) is written as
        // the integer it is, which is what formatNumber gives, without the plain-number
        // check of its text.
        // (Whole: its conversion to Int64 and back gives it again; `rounded()` is a call
        // into the C library.)
        if abs(d) < 9_007_199_254_740_992, Double(Int64(d)) == d { return numberField(Int(d)) }
        // Whole hundredths or thousandths (ms / 1000: every cell of the keystroke-dynamics
        // tables) have formatNumber's digits written straight in: no string and no
        // plain-number check, as such digits always are one (`numberFieldOfDoubles…` test).
        if let k = DecimalText.exactHundredths(d) { return fixedField(k, places: 2) }
        if let k = DecimalText.exactThousandths(d) { return fixedField(k, places: 3) }
        numberField(JSONValue.formatNumber(d))
    }

    /// The digits of `DecimalText.fixed(k, places:)` as a field (`k` ≠ 0).
    private mutating func fixedField(_ k: Int64, places: Int) {
        separate()
        DecimalText.withFixed(k, places: places) { bytes.append(contentsOf: $0) }
    }

    public mutating func emptyField() { separate() }

    /// Ends the current record (CRLF).
    public mutating func endRecord() {
        bytes.append(0x0D); bytes.append(0x0A)
        inRecord = false
    }

    private mutating func separate() {
        if inRecord { bytes.append(0x2C) }
        inRecord = true
    }

    // MARK: A record at once

    /// Writes a record through `body` into a scratch buffer of `capacity` bytes (on the
    /// stack) and appends it at once: one append per record instead of two or three per
    /// field (raw.csv's ≈ 1,500 records of eleven fields per participant). `body` returns
    /// false to give up, as ``RecordBytes`` does for a field that does not fit or needs
    /// more than copying; nothing is appended then, and the caller writes the record
    /// field by field. Returns whether the record was written.
    public mutating func record(capacity: Int, _ body: (inout RecordBytes) -> Bool) -> Bool {
        precondition(!inRecord, "record(capacity:_:) starts a record")
        let neutralise = neutraliseFormulas
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buf in
            var r = RecordBytes(buf, neutraliseFormulas: neutralise)
            guard body(&r), r.fits else { return false }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buf[..<r.count]))
            return true
        }
    }

    /// One text field as it is written (for tests).
    func field(_ raw: String) -> String {
        var w = CSVWriter(neutraliseFormulas: neutraliseFormulas)
        w.textField(raw)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }
    public var data: Data { Data(bytes) }
}
