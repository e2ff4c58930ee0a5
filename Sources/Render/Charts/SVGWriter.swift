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
    private var capacity = 0
    /// Bytes of markup written so far.
    private(set) var count = 0

    /// `capacity`: bytes to make room for at once (0: none until the first write).
    init(capacity: Int = 0) {
        if capacity > 0 { buffer = Self.room(capacity); self.capacity = capacity }
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

    /// The index of the first byte at or after `from` that is not ASCII, eight at a step.
    static func nextNonASCII(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard let base = b.baseAddress else { return nil }
        var i = from
        let n = b.count
        while i + 8 <= n {
            if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < n {
            if base[i] >= 0x80 { return i }
            i += 1
        }
        return nil
    }

    /// `body` of the markup's bytes.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let buffer else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        let used = count
        return buffer.withUnsafeMutablePointerToElements { body(UnsafeBufferPointer(start: $0, count: used)) }
    }

    /// Appends `markup`: its literal text, its `Double`s as coordinates, its `String`s as
    /// they are.
    mutating func write(_ markup: SVGMarkup) {
        if let literal = markup.literal { return write(literal: literal) }
        markup.written.withBytes { appendBytes($0) }
    }

    /// Appends `text` as it is (already escaped, or an attribute such as a colour).
    mutating func write(raw text: String) {
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

    /// Appends `String(v)`: its digits from the stack (``DecimalText/withFixed(_:places:_:)``
    /// with no places).
    mutating func write(whole v: Int) {
        DecimalText.withFixed(Int64(v), places: 0) { appendBytes($0) }
    }

    /// Appends the text of ``ChartNumber/coord(_:)`` for `x`: the rounded hundredths'
    /// digits go from the stack into the bytes (`SVGWriterTests.coordinatesAsChartNumberCoord`
    /// compares the two).
    mutating func write(coordinate x: Double) {
        guard x.isFinite else { return write(literal: "0") }
        let hundredths = (x * 100).rounded()
        guard abs(hundredths) < 9e15 else { write(raw: ChartNumber.coord(x)); return }
        DecimalText.withFixed(Int64(hundredths), places: 2) { appendBytes($0) }
    }

    /// Copies `piece` after the markup: into the buffer's room, which grows (doubling) when
    /// it runs out. A chart writes hundreds of thousands of short pieces; through
    /// `Array.append(contentsOf:)` each cost 100–160 instructions, here a few dozen
    /// (`SVGWriterTests.piecesAsAppendedToAnArray` compares with ``appendedPlainly(_:)``).
    @inline(__always)
    private mutating func appendBytes(_ piece: UnsafeBufferPointer<UInt8>) {
        let n = piece.count
        guard n > 0, let from = piece.baseAddress else { return }
        // (A copy of a writer that writes on gets bytes of its own.)
        if capacity - count < n || !isKnownUniquelyReferenced(&buffer) { grow(by: n) }
        let at = count
        buffer.unsafelyUnwrapped.withUnsafeMutablePointerToElements { elements in
            let to = elements + at
            if n <= 16 {
                for i in 0..<n { to[i] = from[i] }
            } else {
                to.update(from: from, count: n)
            }
        }
        count = at + n
    }

    /// Room for at least `n` more bytes: the buffer doubled (or more, for a long piece),
    /// its markup copied over.
    private mutating func grow(by n: Int) {
        let size = Swift.max(2 * capacity, count + n, 64)
        let bigger = Self.room(size)
        if let old = buffer, count > 0 {
            let used = count
            bigger.withUnsafeMutablePointerToElements { to in
                old.withUnsafeMutablePointerToElements { to.update(from: $0, count: used) }
            }
        }
        buffer = bigger
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

// MARK: - Markup

/// One piece of SVG written with string interpolation, for ``SVGWriter/write(_:)``: the
/// literal text as it is, `\(x)` of a `Double` as a coordinate, `\(s)` of a `String` as
/// it is. Nothing else can be interpolated, so a number cannot slip in unrounded.
struct SVGMarkup: ExpressibleByStringInterpolation {
    /// The text of a literal without interpolations (no bytes are copied for it).
    fileprivate let literal: StaticString?
    /// The text of an interpolated literal.
    fileprivate let written: SVGWriter

    init(stringLiteral literal: StaticString) {
        self.literal = literal
        written = SVGWriter(capacity: 0)
    }

    init(stringInterpolation: StringInterpolation) {
        literal = nil
        written = stringInterpolation.writer
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var writer: SVGWriter

        init(literalCapacity: Int, interpolationCount: Int) {
            // 16 bytes a value: a coordinate takes up to 8, a colour 7, a title more
            // (tooltips are written as pieces of their own: ``Marker/draw``).
            writer = SVGWriter(capacity: literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: StaticString) { writer.write(literal: literal) }

        /// A coordinate, as ``ChartNumber/coord(_:)`` writes it.
        mutating func appendInterpolation(_ x: Double) { writer.write(coordinate: x) }

        /// Text as it is: already escaped, or an attribute value such as a colour.
        mutating func appendInterpolation(_ text: String) { writer.write(raw: text) }
    }
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
