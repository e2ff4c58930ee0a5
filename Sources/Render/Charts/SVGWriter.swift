#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Writer

/// The marks of a chart written as UTF-8 bytes: the per-mark loops of the box plot,
/// scatter and timeline, and ``Marker/draw(into:x:y:r:fill:extra:title:)``.
///
/// A mark is written as it reads in SVG,
/// `marks.write("<rect x=\"\(x0)\" width=\"\(w)\" fill=\"\(fill)\"/>")`, where a `Double`
/// is a coordinate (``ChartNumber/coord(_:)``'s text) and a `String` is copied as it is
/// (it must already be escaped). Until round seven the participant page built one interpolated
/// `String` per mark and one `String` per coordinate, then appended them: 11 % of a
/// study build (docs/perf-study.md, "Round seven, charts"). Here the literal pieces are
/// copied from the binary and a coordinate's digits from a stack buffer.
struct SVGWriter {
    /// The bytes: ``count`` of markup, then room not yet written (``capacity`` in all);
    /// nil before the first write of a writer made without room.
    private var buffer: ManagedBuffer<Void, UInt8>?
    /// The buffer's first byte (nil without a buffer). A piece is stored through it: going
    /// through the buffer (`withUnsafeMutablePointerToElements`) retained and released it
    /// for every piece, ≈ 40 of the ≈ 150 instructions a piece cost (docs/perf-study.md,
    /// "the participant page's charts and tables"). The buffer's elements never move.
    private var base: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    /// Bytes of markup written so far.
    private(set) var count = 0

    /// `capacity`: bytes to make room for at once (0: none until the first write).
    init(capacity: Int = 0) {
        if capacity > 0 {
            let room = Self.room(capacity)
            buffer = room
            base = room.withUnsafeMutablePointerToElements { $0 }
            self.capacity = capacity
        }
    }

    /// Room for `n` bytes, not set first: zeroing the 2–16 KB a chart reserves, or
    /// making an array of that size without setting it (a call into the standard
    /// library's unspecialised code), cost more than the appends it serves.
    private static func room(_ n: Int) -> ManagedBuffer<Void, UInt8> {
        ManagedBuffer<Void, UInt8>.create(minimumCapacity: n) { _ in () }
    }

    /// The markup so far.
    var bytes: [UInt8] { withBytes { Array($0) } }

    /// The markup as a string (``stringInPieces(_:)``).
    var string: String { withBytes { Self.stringInPieces($0) } }

    /// `String(decoding: b, as: UTF8.self)`, its long ASCII runs made strings of their own.
    /// Making a `String` checks its bytes as UTF-8: eight bytes at a step when all are
    /// ASCII, but byte by byte (≈ 10 instructions each) over the whole text when any is
    /// not — and a chart frame holds a few non-ASCII characters among 20 KB (the en dash
    /// of each timeline tooltip). So runs of 64 or more ASCII bytes are made strings
    /// alone (the quick check) and the rest between them byte by byte; the pieces are
    /// appended (a copy of checked text). Pieces end only where an ASCII byte meets a
    /// non-ASCII one, so even broken UTF-8 is repaired as in one piece.
    /// `SVGWriterBufferTests.stringInPiecesAsDecodedWhole` compares the two.
    static func stringInPieces(_ b: UnsafeBufferPointer<UInt8>) -> String {
        let n = b.count
        // A short text (a tooltip) has no run of 64 to split off: made whole, without the
        // room reserved for pieces and the piece's own string.
        if n < 64 { return String(decoding: b, as: UTF8.self) }
        guard var wide = nextNonASCII(b, from: 0) else { return String(decoding: b, as: UTF8.self) }
        var out = ""
        out.reserveCapacity(n)
        func add(_ from: Int, _ to: Int) {
            out += String(decoding: UnsafeBufferPointer(rebasing: b[from..<to]), as: UTF8.self)
        }
        var start = 0, i = 0
        while true {
            // b[i..<wide] is ASCII: a long run is a piece of its own, after the text before it.
            if wide - i >= 64 {
                if i > start { add(start, i) }
                add(i, wide)
                start = wide
            }
            var e = wide
            while e < n && b[e] >= 0x80 { e += 1 }
            i = e
            guard let next = nextNonASCII(b, from: e) else { break }
            wide = next
        }
        if n - i >= 64 {
            if i > start { add(start, i) }
            add(i, n)
        } else if n > start {
            add(start, n)
        }
        return out
    }

    /// The index of the first byte at or after `from` that is not ASCII, 32 at a step
    /// (``ByteSearch/nextNonASCII(in:from:)``, SSE2 in C; it was eight at a step here).
    static func nextNonASCII(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let i = ByteSearch.nextNonASCII(in: b, from: from)
        return i < b.count ? i : nil
    }

    /// `body` of the markup's bytes.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let buffer else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return withExtendedLifetime(buffer) { body(UnsafeBufferPointer(start: base, count: count)) }
    }

    /// Appends `markup`: its literal text, its `Double`s as coordinates, its `String`s as
    /// they are.
    mutating func write(_ markup: SVGMarkup) {
        if let literal = markup.literal { return write(literal: literal) }
        markup.written.withBytes { appendBytes($0) }
    }

    /// Appends the bytes of `piece` (``SVGMarkup``'s own bytes).
    mutating func write(bytes piece: UnsafeBufferPointer<UInt8>) { appendBytes(piece) }

    /// Appends `text` as it is (already escaped, or an attribute such as a colour).
    mutating func write(raw text: String) {
        // The string's own bytes, borrowed: `withUTF8` needs a mutable copy of the string,
        // a retain and a release per piece (≈ 36 of ≈ 110 instructions).
        if text.utf8.withContiguousStorageIfAvailable({ appendBytes($0) }) != nil { return }
        var text = text
        text.withUTF8 { appendBytes($0) }
    }

    /// Appends the markup of `other` (bytes copied as they are: no `String` made of them
    /// and no UTF-8 check, which every `+= writer.string` cost).
    mutating func write(_ other: SVGWriter) {
        other.withBytes { appendBytes($0) }
    }

    /// Appends literal text.
    mutating func write(literal: StaticString) {
        literal.withUTF8Buffer { appendBytes($0) }
    }

    /// Appends ``ChartNumber/shown(_:)`` of `x`: a whole number's digits, or the rounded
    /// hundredths of one from 0.01 up, from the stack with U+2212 for a negative one; any
    /// other value (non-finite, tiny, from 9·10¹³) as the string. A tooltip's numbers were
    /// two strings each (`ChartTooltipTwinTests`, `ChartPiecesTwinTests.shownAsChartNumberShown`).
    mutating func write(shown x: Double) {
        guard x.isFinite, abs(x) < 9e13 else { return write(raw: ChartNumber.shown(x)) }
        if x == x.rounded() {
            if x < 0 { write(literal: "\u{2212}"); write(whole: Int(-x)) } else { write(whole: Int(x)) }
            return
        }
        guard abs(x) >= 0.01 else { return write(raw: ChartNumber.shown(x)) }
        let k = SVGWriter.roundedHundredths(x) ?? Int64((x * 100).rounded())
        if k < 0 { write(literal: "\u{2212}"); writeHundredths(-k) } else { writeHundredths(k) }
    }

    /// Forgets the markup, keeping the room (one writer for many short texts).
    mutating func removeAll() { count = 0 }

    /// Appends `String(v)`: its digits counted, then stored straight into the room
    /// (`SVGWriterTests.wholeNumbersAsString` compares the two).
    mutating func write(whole v: Int) {
        var a = v.magnitude
        var digits = 1, t = a
        while t >= 10 { t /= 10; digits += 1 }
        let n = (v < 0 ? 1 : 0) + digits
        let to = room(for: n)
        var i = n
        repeat {
            i -= 1; to[i] = 0x30 &+ UInt8(a % 10)
            a /= 10
        } while a > 0
        if v < 0 { to[0] = 0x2D }
        count &+= n
    }

    /// Appends the text of ``ChartNumber/coord(_:)`` for `x`: the rounded hundredths'
    /// digits go from the stack into the bytes (`SVGWriterTests.coordinatesAsChartNumberCoord`
    /// compares the two).
    mutating func write(coordinate x: Double) {
        if let k = SVGWriter.roundedHundredths(x) { return writeHundredths(k) }
        guard x.isFinite else { return write(literal: "0") }
        let hundredths = (x * 100).rounded()
        guard abs(hundredths) < 9e15 else { write(raw: ChartNumber.coord(x)); return }
        writeHundredths(Int64(hundredths))
    }

    /// `Int64((x * 100).rounded())` for |x · 100| < 8·10¹⁵ (nil otherwise, and for a
    /// non-finite `x`): the product truncated by the conversion, then moved away from zero
    /// when what was cut is at least one half (the cut part of a `Double` below 2^53 is
    /// exact). `rounded()` is a call of the C library's `round` per coordinate, ≈ 0.5 % of a
    /// study build's CPU samples. `SVGWriterTests.coordinatesAsChartNumberCoord` and
    /// `ChartPiecesTwinTests.roundedHundredthsAsRounded` compare the two.
    @inline(__always)
    static func roundedHundredths(_ x: Double) -> Int64? {
        let v = x * 100
        guard abs(v) < 8e15 else { return nil }   // (false for NaN)
        let i = Int64(v)
        let cut = v - Double(i)
        return cut >= 0.5 ? i + 1 : cut <= -0.5 ? i - 1 : i
    }

    /// Appends `DecimalText.withFixed(k, places: 2)`'s text (`-` when `k` < 0, the whole
    /// part, then `.` and one or two digits unless they are zeros), its digits stored
    /// straight into the room (|k| < 9·10¹⁵: at most 20 bytes). Through `withFixed` and
    /// its closure a coordinate cost ≈ 240 instructions. `SVGWriterTests`
    /// (`coordinatesAsChartNumberCoord`, `hundredthsAsWithFixed`) compare the two.
    mutating func writeHundredths(_ k: Int64) {
        count &+= SVGWriter.hundredths(k, into: room(for: SVGWriter.hundredthsRoom))
    }

    /// The most bytes ``hundredths(_:into:)`` stores.
    static let hundredthsRoom = 24

    /// Stores the text of ``writeHundredths(_:)`` at `to` (room for ``hundredthsRoom``
    /// bytes) and returns its length.
    @inline(__always)
    static func hundredths(_ k: Int64, into to: UnsafeMutablePointer<UInt8>) -> Int {
        var whole = k.magnitude / 100
        let frac = Int(k.magnitude % 100)
        var digits = 1, t = whole
        while t >= 10 { t /= 10; digits += 1 }
        let fracDigits = frac == 0 ? 0 : frac % 10 == 0 ? 1 : 2
        let n = (k < 0 ? 1 : 0) + digits + (fracDigits == 0 ? 0 : 1 + fracDigits)
        var i = n
        if fracDigits == 2 { i -= 1; to[i] = 0x30 &+ UInt8(frac % 10) }
        if fracDigits != 0 { i -= 1; to[i] = 0x30 &+ UInt8(frac / 10); i -= 1; to[i] = 0x2E }  // "."
        repeat {
            i -= 1; to[i] = 0x30 &+ UInt8(whole % 10)
            whole /= 10
        } while whole > 0
        if k < 0 { to[0] = 0x2D }                                                            // "-"
        return n
    }

    /// Copies `piece` after the markup: into the buffer's room, which grows (doubling) when
    /// it runs out. A chart writes hundreds of thousands of short pieces; through
    /// `Array.append(contentsOf:)` each cost 100–160 instructions, here a few dozen
    /// (`SVGWriterTests.piecesAsAppendedToAnArray` compares with ``appendedPlainly(_:)``).
    @inline(__always)
    private mutating func appendBytes(_ piece: UnsafeBufferPointer<UInt8>) {
        let n = piece.count
        guard n > 0, let from = piece.baseAddress else { return }
        SVGWriter.copy(from, to: room(for: n), count: n)
        count &+= n
    }

    /// Copies `n` bytes: up to 16 as two (overlapping) words of 8, 4, 2 or 1 bytes each,
    /// more by `update(from:count:)` (a call of `memmove`; a byte loop cost ≈ 3
    /// instructions a byte, most pieces being 5–15 bytes).
    @inline(__always)
    static func copy(_ from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, count n: Int) {
        let src = UnsafeRawPointer(from), dst = UnsafeMutableRawPointer(to)
        if n >= 8 {
            if n > 16 { return to.update(from: from, count: n) }
            let a = src.loadUnaligned(as: UInt64.self), b = src.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            dst.storeBytes(of: a, as: UInt64.self)
            dst.storeBytes(of: b, toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 {
            let a = src.loadUnaligned(as: UInt32.self), b = src.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            dst.storeBytes(of: a, as: UInt32.self)
            dst.storeBytes(of: b, toByteOffset: n - 4, as: UInt32.self)
        } else if n >= 2 {
            let a = src.loadUnaligned(as: UInt16.self), b = src.loadUnaligned(fromByteOffset: n - 2, as: UInt16.self)
            dst.storeBytes(of: a, as: UInt16.self)
            dst.storeBytes(of: b, toByteOffset: n - 2, as: UInt16.self)
        } else if n == 1 {
            to[0] = from[0]
        }
    }

    /// Where the next `n` bytes go: the room after the markup, made first when there is
    /// less than `n` or the buffer is shared (a copy of a writer that writes on gets bytes
    /// of its own). The caller stores them and adds them to ``count``.
    @inline(__always)
    private mutating func room(for n: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(capacity &- count < n || !isKnownUniquelyReferenced(&buffer)) { grow(by: n) }
        return base.unsafelyUnwrapped + count
    }

    /// Room for at least `n` more bytes: the buffer doubled (or more, for a long piece),
    /// its markup copied over.
    @inline(never)
    private mutating func grow(by n: Int) {
        let size = Swift.max(2 * capacity, count + n, 64)
        let bigger = Self.room(size)
        let to = bigger.withUnsafeMutablePointerToElements { $0 }
        if let old = base, count > 0 { to.update(from: old, count: count) }
        buffer = bigger
        base = to
        capacity = size
    }

    /// The plain twin of the byte writer, kept for the tests: `pieces` appended one after
    /// the other to an array.
    static func appendedPlainly(_ pieces: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for p in pieces { out.append(contentsOf: p) }
        return out
    }

    /// `pieces` written one after the other through the byte writer (the tests'
    /// counterpart of ``appendedPlainly(_:)``).
    static func appendedByWriter(_ pieces: [[UInt8]], capacity: Int) -> [UInt8] {
        var w = SVGWriter(capacity: capacity)
        for p in pieces { p.withUnsafeBufferPointer { w.appendBytes($0) } }
        return w.bytes
    }
}

/// A chart's body is written as it was a `String`: `cv.body += text` appends text as it
/// is, `cv.body += marks` another writer's bytes.
extension SVGWriter {
    static func += (lhs: inout SVGWriter, rhs: String) { lhs.write(raw: rhs) }
    static func += (lhs: inout SVGWriter, rhs: SVGWriter) { lhs.write(rhs) }
}

// MARK: - Text

enum SVGText {
    /// Text safe in SVG element content and attribute values: characters XML 1.0
    /// forbids (C0 controls other than tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) are
    /// dropped, the rest goes through ``HTML/escape(_:)``.
    static func escape(_ s: String) -> String {
        // Most chart text (titles, descriptions, labels, numbers) needs neither: one
        // byte scan then returns it as it is (the filter and the escape below work per
        // Unicode scalar and were 4 % of a study build, docs/perf-study.md).
        if !needsEscaping(s) { return s }
        // Text with `& < > " '` and nothing to drop (a description with an apostrophe)
        // goes straight to the HTML escape: the scalar filter was half a percent of a
        // study build (docs/perf-study.md, "Round seven, charts").
        if !dropsCharacters(s) { return HTML.escape(s) }
        return escapeSlow(s)
    }

    /// Whether ``escapeSlow(_:)`` drops a character of `s`: a C0 control other than
    /// tab/LF/CR, or U+FFFE/U+FFFF (UTF-8 `EF BF BE`/`EF BF BF`).
    static func dropsCharacters(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { u in
            for (i, b) in u.enumerated() {
                if b < 0x20 { if b != 0x09 && b != 0x0A && b != 0x0D { return true } }
                else if b == 0xEF, i + 2 < u.count, u[i + 1] == 0xBF, u[i + 2] == 0xBE || u[i + 2] == 0xBF {
                    return true
                }
            }
            return false
        }
    }

    /// Whether ``escape(_:)`` would change `s`: a byte of `& < > " '`, a C0 control
    /// other than tab/LF/CR, or U+FFFE/U+FFFF (UTF-8 `EF BF BE`/`EF BF BF`).
    static func needsEscaping(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { u in
            // Every byte is tested for the cases; only an `EF` looks at the two after it
            // (round five carried two flags through every byte).
            for (i, b) in u.enumerated() {
                if b < 0x20 { if b != 0x09 && b != 0x0A && b != 0x0D { return true } }
                else if b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22 || b == 0x27 { return true }
                else if b == 0xEF, i + 2 < u.count, u[i + 1] == 0xBF, u[i + 2] == 0xBE || u[i + 2] == 0xBF {
                    return true
                }
            }
            return false
        }
    }

    /// The reference path: drop what XML forbids, then ``HTML/escape(_:)``.
    static func escapeSlow(_ s: String) -> String {
        var clean = ""
        clean.unicodeScalars.append(contentsOf: s.unicodeScalars.filter { u in
            let v = u.value
            if v < 0x20 { return v == 0x09 || v == 0x0A || v == 0x0D }
            if v == 0xFFFE || v == 0xFFFF { return false }
            return true
        })
        return HTML.escape(clean)
    }

    /// `s` shortened to `max` characters with an ellipsis.
    static func truncate(_ s: String, max: Int) -> String {
        guard s.count > max, max > 1 else { return s }
        return String(s.prefix(max - 1)) + "…"
    }
}
