#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Markup

/// One piece of SVG written with string interpolation, for ``SVGWriter/write(_:)``: the
/// literal text as it is, `\(x)` of a `Double` as a coordinate, `\(s)` of a `String` as
/// it is. Nothing else can be interpolated, so a number cannot slip in unrounded.
struct SVGMarkup: ExpressibleByStringInterpolation {
    /// The text of a literal without interpolations (no bytes are copied for it).
    let literal: StaticString?
    /// The text of an interpolated literal.
    let written: MarkupBytes

    init(stringLiteral literal: StaticString) {
        self.literal = literal
        written = MarkupBytes()
    }

    init(stringInterpolation: StringInterpolation) {
        literal = nil
        written = stringInterpolation.bytes
    }

    struct StringInterpolation: StringInterpolationProtocol {
        var bytes = MarkupBytes()

        init(literalCapacity: Int, interpolationCount: Int) {}

        mutating func appendLiteral(_ literal: StaticString) { literal.withUTF8Buffer { bytes.append($0) } }

        /// A coordinate, as ``ChartNumber/coord(_:)`` writes it.
        mutating func appendInterpolation(_ x: Double) {
            if let k = SVGWriter.roundedHundredths(x) { return bytes.appendHundredths(k) }
            guard x.isFinite else { return appendLiteral("0") }
            let hundredths = (x * 100).rounded()
            guard abs(hundredths) < 9e15 else { return appendInterpolation(ChartNumber.coord(x)) }
            bytes.appendHundredths(Int64(hundredths))
        }

        /// Text as it is: already escaped, or an attribute value such as a colour.
        mutating func appendInterpolation(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ bytes.append($0) }) != nil { return }
            var text = text
            text.withUTF8 { bytes.append($0) }
        }
    }
}

/// The bytes of one interpolated ``SVGMarkup``: up to ``inlineCapacity`` in the value
/// itself, all of them in a writer of their own once they are more. Each piece was a
/// writer, a heap buffer made and freed per mark (≈ 350 instructions; 27,000 of them for
/// 50 participants' pages: docs/perf-study.md, "the participant page's charts and
/// tables"); a mark's piece is rarely over 100 bytes. `SVGMarkupBytesTests` compares
/// markup around and over the bound with the interpolated strings.
struct MarkupBytes {
    static let inlineCapacity = 128
    private var inline: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                         UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private var used = 0
    /// Every byte once they do not fit in ``inline``.
    private var spill: SVGWriter?

    mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        let n = piece.count
        guard n > 0, let from = piece.baseAddress else { return }
        if spill == nil, used + n <= Self.inlineCapacity {
            let at = used
            withUnsafeMutableBytes(of: &inline) { raw in
                let to = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self) + at
                SVGWriter.copy(from, to: to, count: n)
            }
            used = at + n
            return
        }
        if spill == nil {
            var all = SVGWriter(capacity: 2 * Self.inlineCapacity + n)
            withBytes { all.write(bytes: $0) }
            spill = all
        }
        spill!.write(bytes: piece)
    }

    /// ``SVGWriter/writeHundredths(_:)``'s text, its digits stored in place when they fit.
    mutating func appendHundredths(_ k: Int64) {
        if spill == nil, used + SVGWriter.hundredthsRoom <= Self.inlineCapacity {
            let at = used
            let n = withUnsafeMutableBytes(of: &inline) { raw in
                let to = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self) + at
                return SVGWriter.hundredths(k, into: to)
            }
            used = at + n
            return
        }
        DecimalText.withFixed(k, places: 2) { append($0) }
    }

    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let spill { return spill.withBytes(body) }
        let n = used
        return withUnsafeBytes(of: inline) { raw in
            body(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: n))
        }
    }
}
