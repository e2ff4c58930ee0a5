import Foundation
import Testing
@testable import Render
import SplitMix64

// Round seven, charts (docs/perf-study.md): the byte writer of the per-mark loops
// against the string formatters it replaces. `SplitMix64` is the simulator's generator.

struct SVGWriterTests {
    /// The text of `x` as ``SVGWriter/write(coordinate:)`` writes it.
    private func written(_ x: Double) -> String {
        var w = SVGWriter()
        w.write(coordinate: x)
        return w.string
    }

    /// Every coordinate as ``ChartNumber/coord(_:)`` writes it: signed zeros and values
    /// that round to zero, ties of the third decimal, the bound of the digits path
    /// (|x · 100| < 9·10¹⁵) on both sides, huge and tiny magnitudes, non-finite values,
    /// and 200,000 random values of chart sizes, wider ranges and arbitrary bit patterns.
    @Test func coordinatesAsChartNumberCoord() {
        var values: [Double] = [
            0, -0.0, 0.001, -0.001, 0.004, -0.004, 0.005, -0.005, 0.0049999, 0.015, -0.015, 0.1, 1, -1,
            12.345, -12.3, 639.999, 640, 1e7, -1e7, 9e13, -9e13, 8.999_999_999_999e13, 9.000_000_000_001e13,
            1e15, -1e15, 1e300, -1e300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .nan, -.nan, .infinity, -.infinity,
            Double(Int64.max), Double(Int64.min)
        ]
        for k in -2_000...2_000 { values.append(Double(k) / 100); values.append((Double(k) + 0.5) / 100) }
        var g = SplitMix64(seed: 71)
        for _ in 0..<50_000 {
            values.append(Double.random(in: -50...1_000, using: &g))
            values.append(Double.random(in: -1e9...1e9, using: &g))
            values.append(Double.random(in: -2e14...2e14, using: &g))
            values.append(Double(bitPattern: g.next()))
        }
        for x in values { #expect(written(x) == ChartNumber.coord(x), "\(x)") }
    }

    /// Markup written through ``SVGMarkup`` equals the interpolated string the charts
    /// built before: literal text, coordinates, raw text (non-ASCII too), a literal
    /// without interpolations, and pieces one after another.
    @Test func markupAsTheInterpolatedString() {
        let c = ChartNumber.coord
        var g = SplitMix64(seed: 72)
        let texts = ["", "#0072B2", "a &amp; b", "é", "日本", "🙂 x", " stroke=\"#ffffff\""]
        var w = SVGWriter()
        var reference = ""
        for _ in 0..<5_000 {
            let x = Double.random(in: -100...900, using: &g), y = Double(bitPattern: g.next())
            let s = texts[Int(g.next() % UInt64(texts.count))]
            switch g.next() % 3 {
            case 0:
                w.write("<rect x=\"\(x)\" y=\"\(y)\" fill=\"\(s)\"/>")
                reference += "<rect x=\"\(c(x))\" y=\"\(c(y))\" fill=\"\(s)\"/>"
            case 1:
                w.write("</g>")
                reference += "</g>"
            default:
                w.write(raw: s)
                w.write("M\(x) \(y)Z")
                reference += s + "M\(c(x)) \(c(y))Z"
            }
        }
        #expect(w.string == reference)
    }

    /// ``SVGText/escape(_:)`` as its reference path (``SVGText/escapeSlow(_:)``) on 20,000
    /// random texts made of pieces: every escaped character, every dropped one (controls,
    /// U+FFFE, U+FFFF), the kept controls, and non-ASCII text whose UTF-8 starts with `EF`.
    @Test func escapedTextAsTheReferencePath() {
        let pieces = [
            "a", " ", "&", "<", ">", "\"", "'", "\t", "\n", "\r", "\u{1}", "\u{1F}", "\u{0}", "\u{FFFE}", "\u{FFFF}",
            "\u{FFFD}", "\u{EFBF}", "\u{FEFF}", "é", "日", "🙂", "it's", "&amp;"
        ]
        var g = SplitMix64(seed: 73)
        for _ in 0..<20_000 {
            let s = (0..<Int(g.next() % 8)).map { _ in pieces[Int(g.next() % UInt64(pieces.count))] }.joined()
            #expect(SVGText.escape(s) == SVGText.escapeSlow(s), "\(s.debugDescription)")
        }
    }

    /// A box plot whose drawings share the groups' descriptions (``Charts/boxPlot(groups:options:)``)
    /// equals the frame whose drawings describe the groups themselves: random groups,
    /// empty ones, outliers, names to escape.
    @Test func sharedBoxDescriptionsMatchTheirDrawings() {
        var g = SplitMix64(seed: 74)
        for _ in 0..<200 {
            let groups = (0..<Int(1 + g.next() % 5)).map { i in
                BoxGroup(name: i == 1 ? "a <b> & 'c'" : "group \(i)", values: (0..<Int(g.next() % 60)).map { _ in
                        g.next() % 20 == 0
                            ? Double(g.next() % 5_000) : Double(g.next() % 400) + (g.next() % 2 == 0 ? 0.25 : 0)
                })
            }
            let options = ChartOptions(title: "Keystroke dynamics", description: "d", yLabel: "ms")
            #expect(Charts.boxPlot(groups: groups, options: options)
                    == Charts.responsive(options) { BoxPlotChart.render(groups: groups, options: $0) })
        }
    }
}

// MARK: - The byte buffer

struct SVGWriterBufferTests {
    /// 2,000 runs of random pieces (empty, 1–16 bytes copied byte by byte, longer ones
    /// copied at once, some longer than the whole buffer) written from starting
    /// capacities of 0, 1, 63, 64 and random ones, so that every run grows its buffer
    /// at different points: the bytes equal the pieces appended to an array.
    @Test func piecesAsAppendedToAnArray() {
        var g = SplitMix64(seed: 4_545)
        for run in 0..<2_000 {
            let pieces: [[UInt8]] = (0..<Int(g.next() % 60)).map { _ in
                let n = [0, 1, 2, 15, 16, 17, 31, 64, 65, 200, 5_000][Int(g.next() % 11)]
                return (0..<n).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            }
            let capacity = [0, 1, 63, 64, Int(g.next() % 3_000)][run % 5]
            #expect(SVGWriter.appendedByWriter(pieces, capacity: capacity) == SVGWriter.appendedPlainly(pieces),
                    "run \(run)")
        }
    }

    /// ``SVGWriter/stringInPieces(_:)`` against `String(decoding:as:)` of the whole: texts
    /// of ASCII runs of every length around the 64-byte cut and the 8-byte step, with
    /// non-ASCII characters (dashes, combining marks, emoji) at the start, the end and in
    /// between, all-ASCII and empty texts, and random bytes (broken UTF-8 too).
    @Test func stringInPiecesAsDecodedWhole() {
        var g = SplitMix64(seed: 64)
        let wide = ["–", "é", "\u{301}", "😀", "日本", "·…"].map { Array($0.utf8) }
        var split = 0
        for run in 0..<20_000 {
            var bytes: [UInt8] = []
            if run % 10 == 9 {
                bytes = (0..<Int(g.next() % 300)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            } else {
                for _ in 0..<Int(g.next() % 12) {
                    if g.next() % 3 == 0 {
                        bytes += wide[Int(g.next() % UInt64(wide.count))]
                    } else {
                        let n = [0, 1, 7, 8, 9, 62, 63, 64, 65, 100, 300][Int(g.next() % 11)]
                        bytes += (0..<n).map { _ in UInt8(0x20 + g.next() % 95) }
                    }
                }
            }
            let fast = bytes.withUnsafeBufferPointer { SVGWriter.stringInPieces($0) }
            let whole = String(decoding: bytes, as: UTF8.self)
            #expect(fast.utf8.elementsEqual(whole.utf8), "run \(run): \(bytes)")
            if bytes.count >= 64, bytes.contains(where: { $0 >= 0x80 }) { split += 1 }
        }
        #expect(split > 3_000)
    }

    /// A copy of a writer that goes on writing has bytes of its own: neither sees the
    /// other's later pieces, with room to spare in the shared buffer or without.
    @Test func copiesWriteOnTheirOwn() {
        for capacity in [0, 6, 64, 4_096] {
            var a = SVGWriter(capacity: capacity)
            a.write(literal: "abc")
            var b = a
            b.write(literal: "XYZ")
            a.write(literal: "def")
            b.write(raw: "é")
            #expect(a.string == "abcdef", "capacity \(capacity)")
            #expect(b.string == "abcXYZé", "capacity \(capacity)")
        }
    }
}
