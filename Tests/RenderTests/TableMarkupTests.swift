import Foundation
import Testing
@testable import Render

@Test func aPlainTableIsWrappedInALabelledKeyboardRegion() {
    let html =
        "<h2>Players &amp; "
            + "scores</h2>\n<table><thead><tr><th>Name</th></tr></thead><tbody><tr><td>a</td></tr></tbody></table>"
    let out = TableMarkup.enhance(html)
    #expect(
        out.contains(
            "<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Players &amp; scores\"><table "
                + "class=\"data\">"
        ))
    #expect(out.hasSuffix("</table></div>"))
    // idempotent: an already wrapped table is not wrapped again
    #expect(TableMarkup.enhance(out) == out)
}

@Test func aLegacyTableWrapBecomesTheRegion() {
    let out = TableMarkup.enhance(
        "<div class=\"table-wrap\">\n<table><caption>Sessions</caption><tr><td>x</td></tr></table>\n</div>")
    #expect(out.hasPrefix("<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Sessions\">"))
    #expect(!out.contains("table-wrap"))
}

@Test func numberColumnsAreMarkedAndPaddedToOneNumberOfDecimals() {
    let html = "<table><thead><tr><th>Who</th><th>Score</th><th>Note</th><th>Empty</th></tr></thead><tbody>"
        + "<tr><td>a</td><td>4</td><td>x</td><td></td></tr>"
        + "<tr><td>b</td><td>10.3</td><td>2</td><td>—</td></tr>"
        + "<tr><td>c</td><td>1,010.11</td><td>True</td><td></td></tr></tbody></table>"
    let out = TableMarkup.enhance(html)
    #expect(out.contains("<th class=\"num\">Score</th>"))
    #expect(
        out.contains("<td class=\"num\">4.00</td>") && out.contains("<td class=\"num\">10.30</td>")
            && out.contains("<td class=\"num\">1,010.11</td>"))
    #expect(!out.contains("<td class=\"num\">x</td>"))        // a mixed column is text
    #expect(out.contains("<td>yes</td>"))
    #expect(out.contains("<th class=\"col-empty\">Empty</th>") && out.contains("<td class=\"col-empty\">—</td>"))
}

@Test func secondsInCellsReadAsDurations() {
    let out = TableMarkup.enhance(
        "<table><tr><th>t</th></tr><tr><td>1144.15 s</td></tr><tr><td>42.5 s</td></tr></table>")
    #expect(out.contains(">19 min 04 s<"))
    #expect(out.contains(">42.5 s<"))
}

@Test func tablesWithSpansKeepTheirCells() {
    let html = "<table><tr><th colspan=\"2\">x</th></tr><tr><td>1</td><td>true</td></tr></table>"
    let out = TableMarkup.enhance(html)
    #expect(out.contains("<td>1</td><td>true</td>"))
}

@Test func durationsReadAsMinutesAndSeconds() {
    #expect(ValueFormat.duration(1144.15) == "19 min 04 s")
    #expect(ValueFormat.duration(42.54) == "42.5 s")
    #expect(ValueFormat.duration(59.96) == "1 min 00 s")
    #expect(ValueFormat.duration(60) == "1 min 00 s")
    #expect(ValueFormat.duration(3599.6) == "1 h 00 min")
    #expect(ValueFormat.duration(7500) == "2 h 05 min")
    #expect(ValueFormat.duration(-65) == "−1 min 05 s")
    #expect(ValueFormat.duration(.nan) == "—")
}

/// A duration too long to count in whole minutes reads as hours alone, and a table holding
/// one is enhanced (it stopped the build with an illegal instruction: the minutes were
/// converted to `Int`).
@Test func durationsBeyondCountableMinutesReadAsHours() {
    #expect(ValueFormat.duration(1e300) == "2.777777777777778e+296 h")
    #expect(ValueFormat.duration(-1e300) == "−2.777777777777778e+296 h")
    #expect(ValueFormat.duration(3.6e15) == "1000000000000.0 h")
    #expect(ValueFormat.duration(.greatestFiniteMagnitude).hasSuffix("e+304 h"))
    #expect(ValueFormat.duration(9.99e14) == "\(Int((9.99e14 / 60).rounded()) / 60) h 00 min")
    let html = "<table><thead><tr><th>Time</th></tr></thead><tbody><tr><td>61 s</td></tr><tr><td>1e300 s</td></tr>"
        + "<tr><td>-1e308 s</td></tr></tbody></table>"
    let out = TableMarkup.enhance(html)
    #expect(out.contains(">1 min 01 s<") && out.contains(">2.777777777777778e+296 h<"), "\(out)")
    #expect(out.contains(">−2.777777777777778e+304 h<"), "\(out)")
}

@Test func categoriesSortInTheirNaturalOrder() {
    let bands = ["30–44", "3–12", "45+", "13–17", "18–29"]
    #expect(bands.sorted(by: ValueFormat.naturalLess) == ["3–12", "13–17", "18–29", "30–44", "45+"])
    #expect(ValueFormat.date("2024-03-07") == "7 March 2024")
    #expect(ValueFormat.date("soon") == "soon")
    #expect(ValueFormat.dateTime("2026-03-02T09:05:00Z") == "2 March 2026, 09:05 UTC")
    #expect(ValueFormat.dateTime("2026-03-02") == "2 March 2026")
    #expect(ValueFormat.dateTime("2026-03-02T09:05:00+01:00") == "2 March 2026")
    #expect(ValueFormat.dateTime("—") == "—")
    #expect(ValueFormat.yesNo(false) == "no")
}

@Test func cellTextIsTrimmedOfTheSameWhiteSpaceAsFoundationTrims() {
    let samples = [
        "", " ", "x", "  12.5 s \n", "\u{A0}4\u{3000}", "\u{2003}\u{85}yes\u{2028}\u{2029}", "\r\n\t—\u{B}\u{C}",
        "a b", " \u{301}x ", "\u{200B}zero-width\u{200B}", "\u{FEFF}bom", "é ", "\u{1680}\u{180E}x\u{202F}\u{205F}"
    ]
    for s in samples {
        #expect(TableMarkup.trimmed(s) == s.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(s.unicodeScalars.map { $0.value })")
    }
}

/// Random cells over the characters the number rule looks at (digits, signs, `.`, `,`,
/// units, spaces, `\r\n`, `−`, a combining mark).
private func randomCells(_ count: Int, seed: UInt64) -> [String] {
    let pieces = [
        "0", "7", "12", ".", ",", "-", "+", "−", " ", "%", " %", " s", "s", "x", "\r\n", "\u{301}", "1.5", "3.", "e"
    ]
    var state = seed
    func next() -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int(truncatingIfNeeded: state >> 33)
    }
    return (0..<count).map { _ in (0..<(next() % 7)).map { _ in pieces[next() % pieces.count] }.joined() }
}

@Test func numberDecimalsByteRuleAgreesWithTheCharacterRule() {
    for cell in randomCells(20_000, seed: 3) + [
        "12 %", "5%", "3.5 s", "-1,234.56", "+0.10", "3.", "1.2.3", "", "%", " s"
    ] {
        let t = TableMarkup.trimmed(cell)
        #expect(
            TableMarkup.numberDecimals(cell) == TableMarkup.numberDecimalsByCharacter(Substring(t)),
            "\(cell.debugDescription)")
    }
}

@Test func findLastFindsTheLastOccurrenceLikeANaiveSearch() {
    for text in randomCells(2_000, seed: 4) {
        let b = Array(("<h2>" + text + "</h2>" + text).utf8)
        for needle in ["</h2>", "<h2", "1", ". ", "%"] {
            let u = Array(needle.utf8)
            let naive = stride(from: b.count - u.count, through: 0, by: -1).first { Array(b[$0..<($0 + u.count)]) == u }
            #expect(TableMarkup.findLast(b, needle) == naive)
        }
    }
}

@Test func aFinalTableKeepsItsCellsAndLosesOnlyItsMarker() {
    let cells = "<thead><tr><th>n</th><th>t</th></tr></thead>"
        + "<tbody><tr><td>4</td><td>True</td></tr><tr><td>10.5</td><td>x</td></tr></tbody></table>"
    // final: the cells as written, the marker replaced by the class the pass gives
    let final = TableMarkup.enhance("<h2>Runs</h2>\n" + TableMarkup.finalTableTag + cells)
    #expect(
        final
            == "<h2>Runs</h2>\n<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Runs\"><table "
                + "class=\"data\">"
            + cells + "</div>")
    // a table a template opens with `<table class="data">` is still marked up
    let plain = TableMarkup.enhance("<table class=\"data\">" + cells)
    #expect(plain.contains("<td class=\"num\">4.0</td>") && plain.contains("<td>yes</td>"))
}

/// The row count of the region's `tall` rule, counted in one pass, against repeated
/// searches for `<td` and `<tr`, on random soups of cell and row tags and look-alikes.
@Test func rowCountInOnePassAgreesWithRepeatedSearches() {
    let pieces = ["<td>", "<tr>", "</tr>", "<th>", "<t", "<", "t", "d", "r", "<tdx", "<<tr", "x", " ", "<table>"]
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
        let n = Int.random(in: 0...30, using: &rng)
        let t = Array((0..<n).map { _ in pieces.randomElement(using: &rng)! }.joined().utf8)
        #expect(TableMarkup.bodyRowCount(t) == TableMarkup.bodyRowCountBySearch(t),
                "\(String(decoding: t, as: UTF8.self))")
    }
}
