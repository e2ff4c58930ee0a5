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

    /// ``SVGWriter/write(shown:)`` as ``ChartNumber/shown(_:)``: signed zeros, whole numbers
    /// of both signs, hundredths and their ties, values below 0.01, the bound 9·10¹³ and
    /// the strings' own ranges past it, non-finite values, and 100,000 random ones.
    @Test func shownAsChartNumberShown() {
        var xs: [Double] = [0, -0.0, 1, -1, 0.01, -0.01, 0.009, -0.009, 0.005, 0.015, -0.015, 1.005, 2.675, -2.675,
                            12.5, -12.5, 1e13, 9e13, -9e13, 8.999_999_999_999e13, 1e15, -1e15, 1e300, -1e-300,
                            .leastNonzeroMagnitude, .nan, .infinity, -.infinity, Double(Int64.max), 3_600.125]
        var g = SplitMix64(seed: 4_519)
        for _ in 0..<25_000 {
            xs.append(Double(Int.random(in: -100_000...100_000, using: &g)))
            xs.append(Double(Int.random(in: -3_600_000...3_600_000, using: &g)) / 1000)
            xs.append(Double.random(in: -1...1, using: &g))
            xs.append(Double(bitPattern: g.next()))
        }
        for x in xs {
            var w = SVGWriter(capacity: 4)
            w.write(shown: x)
            #expect(w.string == ChartNumber.shown(x), "\(x)")
        }
    }

    /// The tooltips of a whole chart, written one after another into one writer
    /// (``XYChart/tooltips(series:kind:)``, ``TimelineChart/tooltips(lanes:)``), as each
    /// made alone by its plain twin and escaped: labels `é` both ways, CR LF, escaped and
    /// long; numbers whole, hundredths, tiny, negative, huge and non-finite.
    @Test func chartTooltipsAsTheirPlainTwins() {
        let texts = ["", "field 3", "é", "e\u{301}", "a\r\nb", "<b> & \"c\"", String(repeating: "long ", count: 60)]
        let numbers: [Double] = [0, -0.0, 3, -3, 1.25, -0.004, 0.5, 1e14, -1e300, .nan, .infinity, 12.345]
        var g = SplitMix64(seed: 4_520)
        func pick<T>(_ a: [T]) -> T { a[Int(g.next() % UInt64(a.count))] }
        for run in 0..<400 {
            let series = (0..<Int(1 + g.next() % 3)).map { _ in
                XYSeries(name: pick(texts), points: (0..<Int(g.next() % 30)).map { _ in
                    XYPoint(x: pick(numbers), y: pick(numbers), label: g.next() % 3 == 0 ? nil : pick(texts),
                            xValue: g.next() % 4 == 0 ? pick(numbers) : nil)
                })
            }
            for kind in [XYChart.Kind.scatter, .line] {
                let plain = series.map { s in
                    s.points.map { p -> String? in
                        guard p.x.isFinite, p.y.isFinite else { return nil }
                        let total = series.reduce(0) { $0 + $1.points.count(where: { $0.x.isFinite && $0.y.isFinite }) }
                        let shown = kind == .line ? s.points.count <= XYChart.lineMarkerLimit
                            : p.label != nil || total <= XYChart.tooltipLimit
                        return shown
                            ? SVGText.escape(XYChart.tooltipByStrings(p, series: s.name, many: series.count > 1)) : nil
                    }
                }
                #expect(XYChart.tooltips(series: series, kind: kind) == plain, "run \(run)")
            }
            let lanes = (0..<Int(g.next() % 4)).map { _ in
                TimelineLane(name: pick(texts), spans: (0..<Int(g.next() % 8)).map { _ in
                    TimelineSpan(start: pick(numbers), end: pick(numbers), label: pick(texts), category: pick(texts))
                })
            }
            let plainSpans = lanes.map { lane in
                lane.spans.map { s -> String in
                    guard s.start.isFinite, s.end.isFinite else { return "" }
                    return SVGText.escape(
                        TimelineChart.tooltipByStrings(lane.name, s, min(s.start, s.end), max(s.start, s.end)))
                }
            }
            #expect(TimelineChart.tooltips(lanes: lanes) == plainSpans, "run \(run)")
        }
    }

    /// Chart ids made from ASCII titles by their bytes (``ChartID/fromASCIITitle(_:kind:)``)
    /// as made plainly: titles empty, of separators only, upper case, digits, runs of
    /// separators, slugs cut at 24 characters on a letter and on a dash, with `é` as one
    /// scalar and as e + U+0301 (the plain path), CR LF, and 5,000 random titles.
    @Test func chartIDsAsMadePlainly() {
        let pieces = ["", "a", "Z", "9", " ", "-", "--", "Entry time", "ERRORS", "é", "e\u{301}", "\r\n", "_", "!",
                      "Keystroke dynamics (Entry pages)", String(repeating: "x", count: 23), "İ", "ß", "K"]
        var g = SplitMix64(seed: 4_521)
        var titles = pieces
        for _ in 0..<5_000 {
            titles.append((0..<Int(g.next() % 6)).map { _ in pieces[Int(g.next() % UInt64(pieces.count))] }.joined())
        }
        var fast = 0
        for title in titles {
            for description in ["", "d", "Counts per string: é", String(repeating: "long text ", count: 30)] {
                let o = ChartOptions(title: title, description: description)
                #expect(ChartID.make(o, kind: "scatter") == ChartID.fromTitlePlainly(o, kind: "scatter"),
                        "\(title.debugDescription)")
                if let f = ChartID.fromASCIITitle(o, kind: "bar") {
                    fast += 1
                    #expect(f == ChartID.fromTitlePlainly(o, kind: "bar"), "\(title.debugDescription)")
                }
            }
        }
        #expect(fast > 2_000)
    }

    /// ``SVGWriter/copy(_:to:count:)`` for every length from 0 to 80 (the words of 1, 2, 4
    /// and 8 bytes, their overlaps, `memmove` past 16), from every offset of 0 to 7 into
    /// every offset of 0 to 7, with the bytes around the copy untouched.
    @Test func everyShortCopyAsTheBytes() {
        var g = SplitMix64(seed: 4_522)
        let source = (0..<100).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        for n in 0...80 {
            for from in 0..<8 {
                for to in 0..<8 {
                    var target = [UInt8](repeating: 0xAA, count: 100)
                    source.withUnsafeBufferPointer { s in
                        target.withUnsafeMutableBufferPointer { t in
                            SVGWriter.copy(s.baseAddress! + from, to: t.baseAddress! + to, count: n)
                        }
                    }
                    var expected = [UInt8](repeating: 0xAA, count: 100)
                    expected.replaceSubrange(to..<(to + n), with: source[from..<(from + n)])
                    #expect(target == expected, "\(n) bytes from \(from) to \(to)")
                }
            }
        }
    }

    /// ``XYExtent`` as the arrays of points give it (``XYExtent/plainly(series:trend:)``),
    /// bit for bit: no series, empty series, only non-finite points, a trend alone, signed
    /// zeros (which `min()` keeps first), whole and fractional x, y and `xValue`, non-finite
    /// `xValue`, labels `é` both ways; 20,000 random charts.
    @Test func xyExtentsAsTheArraysGiveThem() {
        let numbers: [Double] = [0, -0.0, 1, -1, 2.5, -3.75, 1e15, -1e300, .nan, .infinity, -.infinity, 7, 0.001]
        var g = SplitMix64(seed: 4_524)
        func pick<T>(_ a: [T]) -> T { a[Int(g.next() % UInt64(a.count))] }
        func points() -> [XYPoint] {
            (0..<Int(g.next() % 9)).map { _ in
                XYPoint(x: pick(numbers), y: pick(numbers), label: pick([nil, "é", "e\u{301}", "field 2"]),
                        xValue: g.next() % 3 == 0 ? pick(numbers) : nil)
            }
        }
        func bits(_ e: XYExtent) -> [UInt64] {
            [e.xMin, e.xMax, e.yMin, e.yMax].map(\.bitPattern) + [e.xWhole ? 1 : 0, e.yWhole ? 1 : 0, e.hasData ? 1 : 0]
        }
        var cases: [([XYSeries], XYSeries?)] = [([], nil), ([XYSeries(name: "a", points: [])], nil),
                                                 ([], XYSeries(name: "t", points: [XYPoint(x: 1, y: 2)])),
                                                 ([XYSeries(name: "z", points: [XYPoint(x: 0, y: -0.0),
                                                                                XYPoint(x: -0.0, y: 0)])], nil)]
        for _ in 0..<20_000 {
            let series = (0..<Int(g.next() % 4)).map { _ in XYSeries(name: "s", points: points()) }
            cases.append((series, g.next() % 3 == 0 ? XYSeries(name: "trend", points: points()) : nil))
        }
        for (series, trend) in cases {
            let fast = XYExtent(series: series, trend: trend), plain = XYExtent.plainly(series: series, trend: trend)
            let any = fast.hasData || !(series.flatMap(\.points) + (trend?.points ?? [])).allSatisfy {
                !($0.x.isFinite && $0.y.isFinite)
            }
            // (With no finite point at all the extent is not read: only its flags must agree.)
            if any { #expect(bits(fast) == bits(plain), "\(series) \(String(describing: trend))") }
            #expect(fast.hasData == plain.hasData && fast.xWhole == plain.xWhole && fast.yWhole == plain.yWhole)
        }
    }

    /// ``SVGWriter/roundedHundredths(_:)`` as `Int64((x * 100).rounded())`: every tie of the
    /// hundredths (k + 0.5) and its neighbours one ulp apart, signed zeros, the bound 8·10¹⁵
    /// on both sides, values just below 0.5 and 1.5 hundredths, non-finite values (nil), and
    /// 300,000 random ones.
    @Test func roundedHundredthsAsRounded() {
        var xs: [Double] = [0, -0.0, 0.005, -0.005, 0.0049999999999999, 0.00499999999999999999, 0.015,
                            79_999_999_999_999.99, -79_999_999_999_999.99, 8e13, -8e13, 8.1e13, 1e300, .nan,
                            .infinity, -.infinity,
                            .leastNonzeroMagnitude, 0.49999999999999994 / 100, 1.4999999999999998 / 100]
        for k in -3_000...3_000 {
            let tie = (Double(k) + 0.5) / 100
            xs += [tie, tie.nextUp, tie.nextDown, Double(k) / 100]
        }
        var g = SplitMix64(seed: 4_525)
        for _ in 0..<100_000 {
            xs.append(Double.random(in: -1_000...1_000, using: &g))
            xs.append(Double.random(in: -8.1e13...8.1e13, using: &g))
            xs.append(Double(bitPattern: g.next()))
        }
        for x in xs {
            let plain: Int64? = x.isFinite && abs(x * 100) < 8e15 ? Int64((x * 100).rounded()) : nil
            #expect(SVGWriter.roundedHundredths(x) == plain, "\(x)")
        }
    }
}
