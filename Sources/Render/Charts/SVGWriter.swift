import Foundation

// MARK: - Writer

/// The marks of a chart written as UTF-8 bytes: the per-mark loops of the box plot,
/// scatter and timeline, and ``Marker/draw(into:x:y:r:fill:extra:title:)``.
///
/// A mark is written as it reads in SVG,
/// `marks.write("<rect x=\"\(x0)\" width=\"\(w)\" fill=\"\(fill)\"/>")`, where a `Double`
/// is a coordinate (``ChartNumber/coord(_:)``'s text) and a `String` is copied as it is
/// (it must already be escaped). Round seven's participant page built one interpolated
/// `String` per mark and one `String` per coordinate, then appended them: 11 % of a
/// study build (docs/perf-study.md, "Round seven, charts"). Here the literal pieces are
/// copied from the binary and a coordinate's digits from a stack buffer.
struct SVGWriter {
    /// The markup so far.
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The markup as a string.
    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends `markup`: its literal text, its `Double`s as coordinates, its `String`s as
    /// they are.
    mutating func write(_ markup: SVGMarkup) {
        if let literal = markup.literal { write(literal: literal) } else { bytes.append(contentsOf: markup.written) }
    }

    /// Appends `text` as it is (already escaped, or an attribute such as a colour).
    mutating func write(raw text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends literal text.
    mutating func write(literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends the text of ``ChartNumber/coord(_:)`` for `x`: the rounded hundredths'
    /// digits go from the stack into the bytes (`FastPathRoundSevenChartTests` compares
    /// the two).
    mutating func write(coordinate x: Double) {
        guard x.isFinite else { bytes.append(0x30); return }                  // "0"
        let hundredths = (x * 100).rounded()
        guard abs(hundredths) < 9e15 else { write(raw: ChartNumber.coord(x)); return }
        DecimalText.withFixed(Int64(hundredths), places: 2) { bytes.append(contentsOf: $0) }
    }
}

// MARK: - Markup

/// One piece of SVG written with string interpolation, for ``SVGWriter/write(_:)``: the
/// literal text as it is, `\(x)` of a `Double` as a coordinate, `\(s)` of a `String` as
/// it is. Nothing else can be interpolated, so a number cannot slip in unrounded.
struct SVGMarkup: ExpressibleByStringInterpolation {
    /// The text of a literal without interpolations (no bytes are copied for it).
    fileprivate let literal: StaticString?
    /// The text of an interpolated literal.
    fileprivate let written: [UInt8]

    init(stringLiteral literal: StaticString) {
        self.literal = literal
        written = []
    }

    init(stringInterpolation: StringInterpolation) {
        literal = nil
        written = stringInterpolation.writer.bytes
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var writer: SVGWriter

        init(literalCapacity: Int, interpolationCount: Int) {
            writer = SVGWriter(capacity: literalCapacity + 8 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: StaticString) { writer.write(literal: literal) }

        /// A coordinate, as ``ChartNumber/coord(_:)`` writes it.
        mutating func appendInterpolation(_ x: Double) { writer.write(coordinate: x) }

        /// Text as it is: already escaped, or an attribute value such as a colour.
        mutating func appendInterpolation(_ text: String) { writer.write(raw: text) }
    }
}
