import Foundation
import Testing
@testable import Render
import SplitMix64

// The participant page's charts and tables (docs/perf-study.md, "Issue #45, the
// participant page's charts and tables"): the byte writer's digits stored straight into
// its room, and markup pieces kept in place, against their plain twins.

struct ChartPiecesTwinTests {
    /// Whole hundredths at every power of ten and its neighbours, both signs, the bound of
    /// the coordinate path (|k| < 9·10¹⁵), and 200,000 random ones: as
    /// ``DecimalText/withFixed(_:places:_:)`` writes them.
    @Test func hundredthsAsWithFixed() {
        var ks: [Int64] = [0, 1, -1, 5, -5, 9, 10, 11, 50, 99, 100, 101, 105, 110, 199, 1_000, 8_999_999_999_999_999,
                           -8_999_999_999_999_999]
        var p: Int64 = 1
        for _ in 0..<16 {
            p *= 10
            for k in [p - 1, p, p + 1, p + 10, p + 50] { ks.append(k); ks.append(-k) }
        }
        var g = SplitMix64(seed: 4_511)
        for _ in 0..<200_000 {
            let k = Int64(bitPattern: g.next()) % 9_000_000_000_000_000
            ks.append(g.next() % 2 == 0 ? k : k % 100_000)
        }
        for k in ks {
            var w = SVGWriter(capacity: Int(g.next() % 24))
            w.write(literal: "x")
            w.writeHundredths(k)
            let plain = "x" + DecimalText.withFixed(k, places: 2) { String(decoding: $0, as: UTF8.self) }
            #expect(w.string == plain, "\(k)")
        }
    }

    /// `Int.min`, `Int.max`, 0, every power of ten and its neighbours, and random numbers,
    /// after text and from an empty writer: as `String(v)`.
    @Test func wholeNumbersAsString() {
        var vs: [Int] = [0, 1, -1, 9, -9, Int.min, Int.max, Int.min + 1, Int.max - 1]
        var p = 1
        for _ in 0..<18 {
            p *= 10
            for v in [p - 1, p, p + 1] { vs.append(v); vs.append(-v) }
        }
        var g = SplitMix64(seed: 4_512)
        for _ in 0..<100_000 { vs.append(Int(truncatingIfNeeded: g.next()) >> Int(g.next() % 64)) }
        for (i, v) in vs.enumerated() {
            var w = SVGWriter(capacity: i % 3 == 0 ? 0 : 8)
            if i % 2 == 0 { w.write(raw: "é") }
            w.write(whole: v)
            #expect(w.string == (i % 2 == 0 ? "é" : "") + String(v), "\(v)")
        }
    }

    /// Markup pieces kept in the value (``MarkupBytes``) up to 128 bytes and in a writer of
    /// their own past it: pieces of every length around the bound, texts empty, one byte,
    /// `é` as one scalar and as e + U+0301, CR LF, escaped and long, coordinates
    /// non-finite, huge and tiny, after one another in one writer, against the
    /// interpolated string.
    @Test func markupAroundItsInlineBoundAsTheInterpolatedString() {
        let c = ChartNumber.coord
        let texts = ["", "x", "é", "e\u{301}", "\r\n", "a &amp; b", "日本", "🙂",
                     String(repeating: "a", count: 100), String(repeating: "é", count: 70),
                     String(repeating: "e\u{301}", count: 45), String(repeating: "z", count: 300)]
        let numbers: [Double] = [0, -0.0, 1.005, -12.345, 1e300, -1e300, .nan, .infinity, 1e-9, 123_456.78]
        var g = SplitMix64(seed: 4_513)
        var w = SVGWriter(capacity: 16)
        var reference = ""
        var spilled = 0
        for run in 0..<20_000 {
            let s = texts[Int(g.next() % UInt64(texts.count))]
            let pad = String(repeating: "p", count: Int(g.next() % 130))
            let x = g.next() % 3 == 0 ? numbers[Int(g.next() % UInt64(numbers.count))]
                : Double.random(in: -1_000...1_000, using: &g)
            switch run % 4 {
            case 0:
                w.write("<a x=\"\(x)\">\(pad)\(s)</a>")
                reference += "<a x=\"\(c(x))\">\(pad)\(s)</a>"
            case 1:
                w.write("\(s)\(pad)\(x)")
                reference += s + pad + c(x)
            case 2:
                w.write("M\(x) \(x)L\(x) \(x)\(s)")
                reference += "M\(c(x)) \(c(x))L\(c(x)) \(c(x))" + s
            default:
                w.write("<g>")
                reference += "<g>"
            }
            if (pad + s).utf8.count + 30 > MarkupBytes.inlineCapacity { spilled += 1 }
        }
        #expect(w.string == reference)
        #expect(spilled > 1_000)
        // The bound itself: 127, 128 and 129 bytes.
        for n in 120...136 {
            var one = SVGWriter()
            let t = String(repeating: "q", count: n - 4)
            one.write("<\(t)\(1.5)")
            #expect(one.string == "<" + t + "1.5", "\(n)")
        }
    }
}
