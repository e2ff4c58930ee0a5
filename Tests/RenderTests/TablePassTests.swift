import Testing
@testable import Render

/// The table pass over the page's bytes (``TableMarkup/enhance(_:)``) against its plain
/// twin (`ReferenceTableMarkup`), on pages as cmark-gfm writes them: GFM tables with
/// every alignment, inline markup, entities and escaped pipes in cells, empty cells and
/// short rows, up to 24 columns, up to 40 rows (past the `tall` limit), several tables
/// on a page with and without a heading between them; with raw HTML allowed also
/// captions, spans, nested tables, legacy wraps and regions written by hand.
@Suite struct TablePassTests {
    static let cells = [
        "", " ", "—", "–", "-", "4", "10.30", "1,234.5", "12 %", "12%", "3.5 s", "75 s", "1144.15 s", "True", "FALSE",
        "tRuE", "yes", "é", "−3", "3.", "+5", "-0", "1e5", "x s", "a&b", "<x>", "\"q\"", "`code`", "*em*", "**1.5**",
        "&amp;", "&lt;5", "5 %", "60.5 s", "-61 s", "K", "[l](https://e.org)", "1.25", "0.5", "100", "a \\| b", "&#39;",
        "~~7~~", "<b>3</b>", "1\u{301}", "٣", "&gt;", "7 &gt; 5", "12.5>"
    ]

    static let rawTables = [
        "<table><caption>Cap &amp; <i>x</i></caption><tr><th>a</th></tr><tr><td>true</td></tr></table>",
        "<table><tr><td colspan=\"2\">1</td></tr><tr><td>2.5</td><td>3</td></tr></table>",
        "<table><tr><td rowspan=\"2\">1</td></tr><tr><td>2.5</td></tr></table>",
        "<table><tr><td><table><tr><td>1.5</td></tr></table></td><td>2</td></tr></table>",
        "<div class=\"table-wrap\">\n<table><tr><th>n</th></tr><tr><td>4</td></tr><tr><td>4.25</td></tr></table>"
            + "\n</div>",
        "<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"R\"><table><tr><td>NO</td></tr>"
            + "</table></div>",
        "<table class=\"x\" title=\"t\"><thead><tr><th>n</th></tr></thead><tr><td>7</td></tr><tr><td>7.5 %</td></tr>"
            + "</table>",
        "<table title=\"<tr><td>1</td></tr>\"><tr><td>2</td></tr><tr><td>2.50</td></tr></table>",
        "<table><tr><td class=\"a\" align=\"left\">9</td><td>x</td></tr><tr><td>9.5</td><td>y</td></tr></table>",
        "<table><tr><th>é</th><td align=\"ü\">1</td></tr><tr><td>2.5</td><td>true</td></tr></table>",
        "<h3>Raw heading</h3>\n<table><tr><td>1</td></tr></table>", "<tablex>", "<table",
    ]

    fileprivate static func markdownTable(_ rng: inout PageSeed) -> String {
        let columns = 1 + rng.next(24)
        let aligns = (0..<columns).map { _ in ["---", ":--", "--:", ":-:"][rng.next(4)] }
        let pools = (0..<columns).map { _ in (0..<3).map { _ in cells[rng.next(cells.count)] } }
        var s = "| " + (0..<columns).map { "h\($0) " + ["", "*x*", "&amp;", "`c`"][rng.next(4)] }
            .joined(separator: " | ") + " |\n"
        s += "| " + aligns.joined(separator: " | ") + " |\n"
        for _ in 0..<[0, 1, 3, 10, 26, 40][rng.next(6)] {
            let n = rng.next(7) == 0 ? 1 + rng.next(columns) : columns
            s += "| " + (0..<n).map { pools[$0][rng.next(3)] }.joined(separator: " | ") + " |\n"
        }
        return s
    }

    fileprivate static func page(_ rng: inout PageSeed, unsafe: Bool) -> String {
        var md = ""
        for t in 0..<(1 + rng.next(4)) {
            if rng.next(3) > 0 { md += String(repeating: "#", count: 1 + rng.next(4)) + " Part \(t) &amp; `x`\n\n" }
            if rng.next(4) == 0 { md += String(repeating: "Some text ünïcode here.\n\n", count: 1 + rng.next(300)) }
            if unsafe, rng.next(2) == 0 { md += rawTables[rng.next(rawTables.count)] + "\n\n" }
            md += markdownTable(&rng) + "\n"
        }
        return md
    }

    @Test(arguments: [false, true])
    func pagesAsCmarkWritesThemAgreeWithThePlainTwin(unsafe: Bool) {
        var rng = PageSeed(state: unsafe ? 61 : 67)
        var labelsFromThePage = 0
        for _ in 0..<400 {
            let markdown = Self.page(&rng, unsafe: unsafe)
            let html = Markdown.render(markdown, options: MarkdownOptions(unsafeHTML: unsafe)).html
            #expect(TableMarkup.enhance(html) == ReferenceTableMarkup.enhance(html), "\(html)")
            var h = html
            if h.withUTF8({ TableMarkup.plan($0).labelFromPage }) { labelsFromThePage += 1 }
        }
        #expect(labelsFromThePage > 20)       // both ways of writing a page are exercised
    }

    /// A page without a table is handed back as it came: the same storage, not a copy.
    @Test func aPageWithoutATableIsNotCopied() {
        let html = String(repeating: "<p>tab le &lt;table</p>\n", count: 200)
        var a = html, b = TableMarkup.enhance(html)
        let same = a.withUTF8 { x in b.withUTF8 { y in x.baseAddress == y.baseAddress } }
        #expect(same && b == html)
    }
}

/// A seeded generator (the same pages on every run).
fileprivate struct PageSeed {
    var state: UInt64
    mutating func next(_ n: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int(truncatingIfNeeded: state >> 33) % n
    }
}
