import Testing
@testable import Render

/// Cells the column rules treat differently: empty marks, numbers with units and signs,
/// seconds above and below a minute, true/false in any case, non-ASCII digits and
/// spaces, text needing escaping, `\r\n`, a combining mark.
private let edgeCells = ["", " ", "—", "–", "-", "4", " 10.30 ", "1,234.5", "12 %", "12%", "3.5 s", "75 s", "1144.15 s",
    "True", "FALSE", "tRuE", " false\r\n", "yes", "é", "−3", "\u{A0}5\u{A0}", "3.", "+5", "-0", "\r\n7\r\n",
    "\t8 s", "1e5", "x s", "true s", "nan s", "inf s", "0x1p4 s", "١٢", "日本語", "a&b", "<x>", "\"q\"",
                         "5 %", "\u{301}1", "1\u{301}", "Tru\u{301}e", "\u{3000}60 s", "60.5 s", "-61 s", "K"]

private struct Seeded {
    var state: UInt64
    mutating func next(_ n: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int(truncatingIfNeeded: state >> 33) % n
    }
}

@Test func cellFactsFastPathAgreesWithTheGeneralRules() {
    var rng = Seeded(state: 11)
    let random = (0..<5_000).map { _ in (0..<rng.next(4)).map { _ in edgeCells[rng.next(edgeCells.count)] }.joined() }
    for cell in edgeCells + random {
        var fast = TableMarkup.CellFacts(cell), general = TableMarkup.CellFacts(reading: cell)
        // `nan s` reads as NaN seconds on both paths; NaN is never == NaN, so compare its bits.
        #expect(fast.seconds?.bitPattern == general.seconds?.bitPattern, "\(cell.debugDescription)")
        fast.seconds = nil; general.seconds = nil
        #expect(fast == general, "\(cell.debugDescription)")
    }
}

@Test func cellTextWithoutMarkupIsReadAsTheGeneralPathReadsIt() {
    for cell in edgeCells + ["a > b", "&amp;", "<code>x</code>", "x&lt;y", "1 &gt; 0"] {
        let bytes = Array(cell.utf8)
        #expect(TableMarkup.cellText(bytes[...]) == TableMarkup.decodeEntities(TableMarkup.stripTags(bytes)))
    }
}

/// A cell as a template writes it: escaped text, text in `<code>`, raw entities, a tag
/// with attributes.
private func cellHTML(_ text: String, _ shape: Int, header: Bool) -> String {
    let tag = header ? "th" : "td"
    switch shape {
    case 0: return "<\(tag)>\(HTML.escape(text))</\(tag)>"
    case 1: return "<\(tag)><code>\(HTML.escape(text))</code></\(tag)>"
    case 2: return "<\(tag) class=\"x\">\(text.replacingOccurrences(of: "&", with: "&amp;"))</\(tag)>"
    default: return "<\(tag) title=\"t\">\(text)</\(tag)>"
    }
}

/// A page of random tables: with and without `<thead>`, row headers, ragged rows, empty
/// tables, captions, headings, legacy wraps, regions, a span.
private func randomPage(_ rng: inout Seeded) -> String {
    var page = ""
    for t in 0..<(1 + rng.next(4)) {
        let columns = 1 + rng.next(5)
        let rows = rng.next(30)
        // a column tends to hold one kind of value, so numeric columns occur
        let pools = (0..<columns).map { _ in (0..<3).map { _ in edgeCells[rng.next(edgeCells.count)] } }
        var table = rng.next(5) == 0 ? "<table><caption>Cap &amp; \(t)</caption>" : "<table>"
        if rng.next(2) == 0 {
            table += "<thead><tr>" + (0..<columns).map { "<th>h\($0)</th>" }.joined() + "</tr></thead><tbody>"
        }
        for _ in 0..<rows {
            let n = rng.next(6) == 0 ? rng.next(columns + 1) : columns
            table += "\n<tr>" + (0..<n).map { k in
                cellHTML(pools[k][rng.next(3)], rng.next(8) == 0 ? rng.next(4) : 0, header: k == 0 && rng.next(5) == 0)
            }.joined() + "</tr>"
        }
        if rng.next(12) == 0 { table += "<tr><td colspan=\"2\">1</td></tr>" }
        table += "</tbody></table>"
        switch rng.next(4) {
        case 0: page += "<h2>Part \(t) &lt;x&gt;</h2>\n" + table + "\n"
        case 1: page += "<div class=\"table-wrap\">\n" + table + "\n</div>\n"
        case 2:
            page += "<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"R\">" + table + "</div>\n"
        default: page += "<p>text ünïcode</p>" + table
        }
    }
    return page
}

@Test func enhanceGivesTheBytesOfTheEditByEditReference() {
    var rng = Seeded(state: 5)
    for _ in 0..<400 {
        let page = randomPage(&rng)
        #expect(TableMarkup.enhance(page) == ReferenceTableMarkup.enhance(page), "\(page)")
    }
    for page in ["<table></table>", "<table><tr></tr></table>", "<table><thead><tr><th>a</th></tr></thead></table>",
                 "<h3>Only</h3><table><tr><th>x</th><td>TRUE</td></tr></table>"] {
        #expect(TableMarkup.enhance(page) == ReferenceTableMarkup.enhance(page))
    }
}

@Test func nestedAndSuccessiveTablesEndWhereTheReferenceEndsThem() {
    // ``TableMarkup/matchingEnd(_:_:)`` jumps between `<table` and `</table>` (round six).
    for page in [
        "<table><tr><td><table><tr><td>1</td></tr></table></td><td>2</td></tr></table>"
            + "<p>x</p><table><tr><td>3</td></tr></table>",
        "<table><tr><td><table><tr><td><table><tr><td>1</td></tr></table></td></tr></table></td></tr></table>",
        "<table><tr><td>1</td></tr>", "<table><tr><td>a</td></tr></table></table><table><tr><td>4.5</td></tr></table>",
        "<tablex><table class=\"t\"><tr><td>1</td></tr></table>", "<table><tr><td>&lt;table</td></tr></table>"
    ] {
        #expect(TableMarkup.enhance(page) == ReferenceTableMarkup.enhance(page), "\(page)")
        let b = Array(page.utf8)
        var from = 0
        while let start = TableMarkup.find(b, "<table", from: from) {
            #expect(
                TableMarkup.matchingEnd(b, start) == ReferenceTableMarkup.matchingEnd(b, start), "\(page) at \(start)")
            from = start + 1
        }
    }
}

/// A table written final from its columns (``TableMarkup/FinalTable`` with
/// ``TableMarkup/TextColumn``, ``TableMarkup/NumberColumn`` and integer columns) reads, after
/// the table pass, exactly as the same table written plain and marked up by the pass:
/// 600 random tables of edge cells as templates write them (escaped text, `<code>`,
/// entities), empty tables, number columns with `—`, negative and large integers.
@Test func finalTablesFromColumnsReadAsThePassMakesThem() {
    var rng = Seeded(state: 23)
    let layout = TableMarkup.FinalTable.Layout(
        beforeHeader: "\n  <thead><tr>", afterHeader: "</tr></thead>\n  <tbody>\n",
        rowOpen: "  <tr>", rowClose: "</tr>\n", afterRows: "  </tbody>\n</table>")
    let numbers = ["—", "4", "10.3", "0.05", "-2.5", "1,234", "12", "7.125", "0"]
    let integers = [0, 1, -1, 42, 1_000_000, Int.max, Int.min, -907]
    for t in 0..<600 {
        let rows = t % 7 == 0 ? 0 : rng.next(25)
        var columns: [TableMarkup.FinalTable.Column] = []
        var plain: [[String]] = []      // each column's cells as a template writes them
        for k in 0..<(1 + rng.next(6)) {
            let title = k == 0 && rng.next(3) == 0 ? "a &amp; b" : "h\(k)"
            switch rng.next(3) {
            case 0:
                let values = (0..<rows).map { _ in integers[rng.next(integers.count)] }
                columns.append(.integers(title, values))
                plain.append(values.map(String.init))
            case 1:
                let pool = (0..<3).map { _ in numbers[rng.next(numbers.count)] }
                let texts = (0..<rows).map { _ in pool[rng.next(3)] }
                columns.append(.numbers(title, TableMarkup.NumberColumn(texts)))
                plain.append(texts)
            default:
                let pool = (0..<3).map { _ in edgeCells[rng.next(edgeCells.count)] }
                let shape = rng.next(3)
                let contents = (0..<rows).map { _ -> String in
                    let text = pool[rng.next(3)]
                    switch shape {
                    case 0: return HTML.escape(text)
                    case 1: return "<code>" + HTML.escape(text) + "</code>"
                    default: return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<",
                            with: "&lt;")
                    }
                }
                columns.append(.text(title, TableMarkup.TextColumn(contents)))
                plain.append(contents)
            }
        }
        let final = TableMarkup.FinalTable.html(columns, rows: rows, layout: layout)
        var table =
            "<table>\n  <thead><tr>" + columns.map { "<th>\($0.title)</th>" }.joined() + "</tr></thead>\n  <tbody>\n"
        for r in 0..<rows { table += "  <tr>" + plain.map { "<td>\($0[r])</td>" }.joined() + "</tr>\n" }
        table += "  </tbody>\n</table>"
        let region = "<h2>T</h2>\n<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"T\">\n"
        #expect(final.hasPrefix(TableMarkup.finalTableTag))
        #expect(
            TableMarkup.enhance(region + final + "\n</div>") == TableMarkup.enhance(region + table + "\n</div>"),
            "\(table)")
        #expect(TableMarkup.enhance("<h2>T</h2>\n" + final) == TableMarkup.enhance("<h2>T</h2>\n" + table), "\(table)")
    }
}

@Test func asciiEntitiesDecodeAsFoundationsReplacements() {
    // Fragments that build entities, broken entities and entities inside others.
    let pieces = [
        "&", "&amp;", "amp;", "lt;", "&lt;", "&gt;", "gt;", "&quot;", "quot;", "&#39;", "#39;", "&#x27;", "x27;",
        "&#", ";", "a", "#", "\r\n", " ", "<", "'", "&&", "&amp;amp;"
    ]
    var rng = Seeded(state: 31)
    let random = (0..<8_000).map { _ in (0..<rng.next(8)).map { _ in pieces[rng.next(pieces.count)] }.joined() }
    for s in pieces + random {
        #expect(
            TableMarkup.decodeASCIIEntities(s) == TableMarkup.decodeEntitiesByFoundation(s), "\(s.debugDescription)")
        #expect(TableMarkup.decodeEntities(s) == TableMarkup.decodeEntitiesByFoundation(s), "\(s.debugDescription)")
    }
    #expect(TableMarkup.decodeASCIIEntities("é&amp;") == nil)
    #expect(TableMarkup.decodeEntities("é&amp;&lt;") == "é&<")
}

@Test func numberColumnFactsAsTheGeneralRules() {
    // ``TableMarkup/NumberColumn/facts(_:)`` reads printable-ASCII-ended text by its bytes.
    var rng = Seeded(state: 41)
    let extra = ["1\u{301}", "12%\u{301}", "1\u{600}%", "5-", "-", "--", "+", "1.2.3", "1,2", ".5", "3.0 s", "- 1"]
    let random = (0..<6_000).map { _ in
        (0..<rng.next(4)).map { _ in (edgeCells + extra)[rng.next(edgeCells.count + extra.count)] }.joined()
    }
    for text in edgeCells + extra + random {
        let f = TableMarkup.NumberColumn.facts(text)
        #expect(
            f.empty == TableMarkup.isEmptyValue(text) && f.decimals == TableMarkup.numberDecimals(text),
            "\(text.debugDescription)")
    }
}

/// Pages of final tables (``TableMarkup/finalTableTag``) against the plain twin (those whose
/// every table is final and in its region through ``TableMarkup/droppingFinalMarkers(_:_:)``), on 1,000
/// random pages of final tables in a region (with and without white space, a long region
/// tag), final tables without one, in a legacy wrap, right after another table, nested
/// tables, plain tables, `<tablex>`, non-ASCII text, and a page that starts with a table.
@Test func pagesOfFinalTablesAsTheGeneralPassMakesThem() {
    var rng = Seeded(state: 43)
    let final =
        TableMarkup.finalTableTag
        + "<thead><tr><th>n</th></tr></thead><tbody><tr><td class=\"num\">4</td></tr></tbody></table>"
    let nested = TableMarkup.finalTableTag + "<tr><td><table><tr><td>true</td></tr></table></td></tr></table>"
    let region = "<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"é\">"
    let pieces = [region + "\n  " + final + "\n</div>", region + final + "</div>", region + nested + "</div>",
        "<div class=\"table-wrap table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"S\">\n" + final
            + "\n</div>",
        "<div class=\"table-scroll\" aria-label=\"" + String(repeating: "x", count: 600) + "\">" + final + "</div>",
                  "<h2>H ü</h2>\n" + final, "<div class=\"table-wrap\">" + final + "</div>", final,
                  "<table><tr><td>TRUE</td></tr></table>", "<p>text &amp; ünïcode</p>\n", "<tablex>", "\n"]
    var slices = 0
    for _ in 0..<1_000 {
        var page = (0..<(1 + rng.next(6))).map { _ in
            rng.next(3) == 0 ? pieces[rng.next(pieces.count)] : pieces[rng.next(4)]
        }.joined()
        #expect(TableMarkup.enhance(page) == ReferenceTableMarkup.enhance(page), "\(page)")
        if page.withUTF8({ TableMarkup.plan($0).finalInRegionsOnly }) { slices += 1 }
    }
    #expect(slices > 100 && slices < 1_000)      // pages taking either way
}
