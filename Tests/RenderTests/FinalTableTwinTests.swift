import Foundation
import Testing
@testable import Render
import SplitMix64

// ``TableMarkup/FinalTable/html(_:rows:layout:)`` (pieces copied by the byte writer, whole
// numbers' digits from the stack) against its plain twin
// ``TableMarkup/FinalTable/htmlByArrays(_:rows:layout:)``.

@Test func finalTablesWrittenAsBytesAsTheirArrayTwin() {
    var g = SplitMix64(seed: 7)
    let texts = ["", "4", "10.3", "—", "<code>a &amp; b</code>", "é ✓ 日本", String(repeating: "x", count: 40),
                 "&lt;tag&gt;", "x", "caf\u{E9}", "cafe\u{301}", "\r\n", "a\r\nb"]
    let integers = [0, 1, -1, 9, 10, -10, 42, 99, 100, 1_000_000, Int.max, Int.min, Int.min + 1, -907]
    let layouts = [
        TableMarkup.FinalTable.Layout(beforeHeader: "\n  <thead><tr>", afterHeader: "</tr></thead>\n  <tbody>\n",
                                      rowOpen: "  <tr>", rowClose: "</tr>\n", afterRows: "  </tbody>\n</table>"),
        TableMarkup.FinalTable.Layout(beforeHeader: "<thead><tr>", afterHeader: "</tr></thead><tbody>",
                                      rowOpen: "<tr>", rowClose: "</tr>", afterRows: "</tbody></table>"),
        TableMarkup.FinalTable.Layout(beforeHeader: "", afterHeader: "é", rowOpen: "", rowClose: "", afterRows: ""),
    ]
    for t in 0..<3_000 {
        let rows = t % 9 == 0 ? 0 : Int.random(in: 0...40, using: &g)
        let columns = (0..<Int.random(in: 0...8, using: &g)).map { k -> TableMarkup.FinalTable.Column in
            let title = k % 3 == 0 ? "a &amp; b" : "h\(k)"
            func cells() -> [String] { (0..<rows).map { _ in texts.randomElement(using: &g)! } }
            switch Int.random(in: 0..<4, using: &g) {
            case 0:
                return .integers(title, (0..<rows).map { _ in
                    Bool.random(using: &g)
                        ? integers.randomElement(using: &g)! : Int.random(in: .min ... .max, using: &g)
                })
            case 1:
                return .numbers(title, TableMarkup.NumberColumn(cells()))
            case 2:
                return .text(title, TableMarkup.TextColumn(cells()))
            default:
                let attribute = Bool.random(using: &g) ? "" : " class=\"x\""
                return TableMarkup.FinalTable.Column(title, classAttribute: attribute, cells: .html(cells()))
            }
        }
        let layout = layouts[t % layouts.count]
        let fast = TableMarkup.FinalTable.html(columns, rows: rows, layout: layout)
        let plain = TableMarkup.FinalTable.htmlByArrays(columns, rows: rows, layout: layout)
        #expect(fast == plain)
        if fast != plain { break }
    }
    // Huge cells (150 KB), in each layout.
    let huge = String(repeating: "é<b>", count: 30_000)
    let columns: [TableMarkup.FinalTable.Column] = [
        .text("h", TableMarkup.TextColumn([huge, "x", ""])), .integers("n", [1, -2, 3]),
        TableMarkup.FinalTable.Column("t", classAttribute: " class=\"x\"", cells: .html(["", huge, "cafe\u{301}"])),
    ]
    for layout in layouts {
        #expect(TableMarkup.FinalTable.html(columns, rows: 3, layout: layout)
                    == TableMarkup.FinalTable.htmlByArrays(columns, rows: 3, layout: layout))
    }
}
