import Testing
@testable import Render
import SplitMix64

// The participant page's number columns and the timeline's summary items (docs/perf-study.md,
// "Issue #45, the participant page's charts and tables") against their plain twins.

struct NumberColumnTwinTests {
    private static let cells = [
        "", " ", "—", "–", "-", "0", "4", "4.5", "4.50", "0.125", "12.3", "1144.15", "-0", "−3", "3.", ".5", "+5",
        "1,234.5", "12 %", "12%", "3.5 s", "75 s", "1144.15 s", "1e5", "NaN", "yes", "é", "e\u{301}", "1\u{301}",
        "1\r\n", "\r\n7\r\n", " 10.30 ", "\u{A0}5", "日本", "a&b", String(repeating: "9", count: 400),
        String(repeating: "9", count: 300) + ".12345", "7.000001",
    ]

    private static func same(_ texts: [String]) -> Bool {
        let fast = TableMarkup.NumberColumn(texts), plain = TableMarkup.NumberColumn(plainly: texts)
        return fast.cells == plain.cells && fast.class == plain.class
    }

    /// No cells, one cell of each kind, two of each pair, and 30,000 random columns of 1–12
    /// cells (numbers of every decimal count, empties, units, text, `é` both ways, CR LF).
    @Test func numberColumnsAsTheirPlainTwin() {
        #expect(Self.same([]))
        for a in Self.cells {
            #expect(Self.same([a]), "\(a.debugDescription)")
            for b in Self.cells { #expect(Self.same([a, b]), "\(a.debugDescription) \(b.debugDescription)") }
        }
        var g = SplitMix64(seed: 4_516)
        var padded = 0
        for _ in 0..<30_000 {
            let numbersOnly = g.next() % 2 == 0
            let texts = (0..<Int(1 + g.next() % 12)).map { _ -> String in
                if numbersOnly || g.next() % 3 != 0 {
                    let whole = Int(g.next() % 5_000) - (g.next() % 8 == 0 ? 2_500 : 0)
                    switch g.next() % 5 {
                    case 0: return "\(whole)"
                    case 1: return "\(whole).\(g.next() % 10)"
                    case 2: return "\(whole).\(10 + g.next() % 90)"
                    case 3: return "—"
                    default: return "\(whole).\(100 + g.next() % 900)"
                    }
                }
                return Self.cells[Int(g.next() % UInt64(Self.cells.count))]
            }
            #expect(Self.same(texts), "\(texts)")
            if TableMarkup.NumberColumn(texts).cells != texts { padded += 1 }
        }
        #expect(padded > 5_000)
    }

    /// The timeline's summary items (``TimelineChart/summaryItems(_:)``, one writer for a
    /// lane's spans) as their plain twin: labels and categories empty, one byte, `é` as one
    /// scalar and as e + U+0301, CR LF, escaped and long; spans and instants, reversed,
    /// whole, thousandths, negative, huge; lanes of no span to 30 spans.
    @Test func timelineSummaryItemsAsTheirPlainTwin() {
        let texts = ["", "x", "Memorize 2", "Verify", "é", "e\u{301}", "a\r\nb", "<b> & \"c\"",
                     String(repeating: "label ", count: 40)]
        let numbers: [Double] = [0, -0.0, 1, 1.5, 12.345, -3.25, 1e15, -1e300, 0.001, 3_600.125]
        var g = SplitMix64(seed: 4_517)
        for _ in 0..<2_000 {
            let spans = (0..<Int(g.next() % 31)).map { _ in
                let a = numbers[Int(g.next() % UInt64(numbers.count))]
                let b = g.next() % 4 == 0 ? a : numbers[Int(g.next() % UInt64(numbers.count))]
                return TimelineSpan(start: a, end: b, label: texts[Int(g.next() % UInt64(texts.count))],
                                    category: texts[Int(g.next() % UInt64(texts.count))])
            }
            #expect(TimelineChart.summaryItems(spans) == spans.map(TimelineChart.summaryItemPlainly), "\(spans)")
        }
    }

    /// A timeline whose drawings share the packed rows and tooltips equals the one whose
    /// drawings make their own: lanes empty, with overlapping spans, instants, non-finite
    /// ends and names with `é` both ways.
    @Test func timelineWithSharedRowsAsDrawnAlone() {
        var g = SplitMix64(seed: 4_518)
        for run in 0..<300 {
            let lanes = (0..<Int(g.next() % 6)).map { i in
                TimelineLane(name: ["String 1", "caf\u{E9}", "cafe\u{301}", "Recall"][i % 4], spans:
                    (0..<Int(g.next() % 7)).map { _ in
                        let a = Double(g.next() % 600) / 4
                        let b = g.next() % 5 == 0 ? a : g.next() % 9 == 0 ? .nan : a + Double(g.next() % 80)
                        return TimelineSpan(start: a, end: b, label: g.next() % 2 == 0 ? "Entry" : "",
                                            category: ["Memorize", "Verify", "Entry", ""][Int(g.next() % 4)])
                    })
            }
            let options = ChartOptions(title: "Phase timeline", description: "When.", height: 200,
                                       xLabel: "seconds since Begin")
            let alone = Charts.responsive(options) { TimelineChart.render(lanes: lanes, options: $0) }
            #expect(Charts.timeline(lanes: lanes, options: options) == alone, "run \(run)")
        }
    }
}
