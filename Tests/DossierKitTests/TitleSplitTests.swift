import Testing
@testable import DossierKit

/// "On this page" goes after the title: the layout cuts the page's HTML where the element
/// holding the first `</h1>` ends at the top level (docs/design-system.md).
@Suite struct TitleSplitTests {
    func cut(_ html: String) -> [String] { let s = TitleSplit.split(html); return [String(s.head), String(s.body)] }

    @Test func aTopLevelTitleIsCutRightAfterIt() {
        #expect(cut("<h1>T</h1>\n<p>a<br>b</p>") == ["<h1>T</h1>", "\n<p>a<br>b</p>"])
        #expect(cut("<!-- <h1> --><p class=\"x\">i</p><h1 id=\"t\">T <em>x</em></h1><h2>A</h2>")
                == ["<!-- <h1> --><p class=\"x\">i</p><h1 id=\"t\">T <em>x</em></h1>", "<h2>A</h2>"])
    }

    @Test func aTitleInsideAnElementIsCutAfterThatElement() {
        let page = "<div class=\"xe\"><script type=\"application/json\">{\"a\":\"</div><h1>\"}</script>"
            + "<svg><path d=\"M0 0\"/></svg><h1>Editor</h1><section><h2>S</h2></section></div><p>after</p>"
        let parts = cut(page)
        #expect(parts[1] == "<p>after</p>")
        #expect(parts[0] + parts[1] == page)
    }

    @Test func noTitleOrUnclosedTagsLeaveTheWholePageAsTheBody() {
        #expect(cut("<p>no title</p>") == ["", "<p>no title</p>"])
        #expect(cut("<div><h1>T</h1>") == ["", "<div><h1>T</h1>"])
        #expect(cut("<h1>T</h1>") == ["<h1>T</h1>", ""])
    }
}
