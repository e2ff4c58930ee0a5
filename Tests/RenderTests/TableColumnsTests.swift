import Testing
@testable import Render

/// ``TableMarkup/Columns`` writes a table's rows in their final form with the table
/// pass's column rules; the page must be byte for byte what the pass gives the same table
/// written plainly.
@Suite struct TableColumnsTests {
    /// Cell contents as a page writes them (HTML): numbers with and without decimals,
    /// empty marks, seconds below and above a minute, true/false, escaped text, a link.
    static let cells = ["", "—", "4", "10.3", "10.11", "1,234.5", "12 %", "3.5 s", "42.5 s", "75 s", "19 min 04 s",
                        "true", "FALSE", "a &amp; b", "&lt;x&gt;", "x", "-", "7", "0.5", "12",
                        "<a href=\"p/\">S1</a> <span class=\"muted\">d/S1.jsonl</span>", "<a href=\"q/\">12</a>"]

    struct Seeded {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
    }

    static func plain(_ head: [String], _ rows: [[String]]) -> String {
        "<div class=\"table-wrap table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"P\">\n<table "
            + "class=\"data\">\n  <thead><tr>"
            + head.map { "<th>\($0)</th>" }.joined() + "</tr></thead>\n  <tbody>"
            + rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined()
            + "</tbody>\n</table>\n</div>"
    }

    static func final(_ head: [String], _ rows: [[String]]) -> String {
        var c = TableMarkup.Columns(count: head.count)
        for r in rows { c.add(row: r) }
        return "<div class=\"table-wrap table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"P\">\n"
            + TableMarkup.finalTableTag
            + "\n  <thead>" + c.headerRow(head) + "</thead>\n  <tbody>" + rows.map(c.bodyRow).joined()
            + "</tbody>\n</table>\n</div>"
    }

    @Test func finalRowsAreWhatTheTablePassWrites() {
        var rng = Seeded(state: 5)
        var rules = 0
        for round in 0..<400 {
            let columns = 1 + rng.next(5), count = 1 + rng.next(round % 3 == 0 ? 40 : 4)
            // Columns drawn from a few cells each, so that whole columns are numeric,
            // empty or durations often enough.
            let pools = (0..<columns).map { _ in
                (0..<(1 + rng.next(3))).map { _ in Self.cells[rng.next(Self.cells.count)] }
            }
            let rows = (0..<count).map { _ in pools.map { $0[rng.next($0.count)] } }
            let head = (0..<columns).map { "h\($0)" }
            let theirs = TableMarkup.enhance(Self.plain(head, rows)), ours = TableMarkup.enhance(Self.final(head, rows))
            #expect(ours == theirs, "round \(round)")
            if theirs.contains("class=\"num\"") || theirs.contains("col-empty") || theirs.contains(" min ") {
                rules += 1
            }
        }
        #expect(rules > 100)   // the rules were exercised, not only tables left as written
    }
}
