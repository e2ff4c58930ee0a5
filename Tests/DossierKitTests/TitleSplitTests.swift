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

    /// The byte walk (``TitleSplit/split(_:)``) against the Character walk it short-cuts
    /// (``TitleSplit/splitByCharacter(_:)``), on random pages made of tags, comments,
    /// raw-text elements and text with combining marks, joiners and prepended marks next
    /// to the delimiters: the same cut every time, and most pages take the byte walk.
    @Test func byteWalkCutsWhereTheCharacterWalkCuts() {
        let pieces = ["<h1>", "</h1>", "<h1 id=\"t\">", "<div class=\"x\">", "</div>", "<section>", "</section>",
                      "<br>", "<img src=\"a.png\"/>", "<svg/>", "<p>", "</p>", "<!--", "-->", "<!-- c -->",
                      "<script>", "</script>", "<style>", "</style>", "<SCRIPT>", "</Script>", "<!doctype html>",
                      "<", ">", "/", "-", "!", "<a-b>", "</a-b>", "<é>", "<scriptä>", "<h1é>", "<//p>", "< p>",
                      "text", " ", "\n", "\r\n", "é", "e\u{301}", "\u{301}", "\u{200D}", "\u{600}", "\u{0E33}",
                      "👍🏽", "🇫🇷", "日本", "<HR>", "<Col span=\"2\">", "<wbr>", "<input>", "<META>", "<source>",
                      "<link>", "<area>", "<Base>", "<embed>", "<track>", "<brx>", "<hr-x>", "<STYLE>", "<sCrIpT>",
                      "<scripts>", "<styl>"]
        var random = SeededNumbers(state: 45)
        var byBytes = 0
        for _ in 0..<6000 {
            let html = random.soup(pieces, fewerThan: 24)
            let fast = TitleSplit.split(html), plain = TitleSplit.splitByCharacter(html)
            #expect(String(fast.head) == String(plain.head) && String(fast.body) == String(plain.body),
                    "\(html.debugDescription)")
            var copy = html
            if copy.withUTF8({ TitleSplit.cutByBytes($0) }) != nil { byBytes += 1 }
        }
        #expect(byBytes > 1500)
    }

    /// The scan for an ASCII byte joined to its neighbour, with each scalar's answers
    /// remembered (``TitleSplit/asciiJoinsNeighbour(_:)``), against its twin that looks
    /// them up for every run: random text of repeated dashes, marks, joiners, prepended
    /// and format characters, emoji and modifiers, next to ASCII or not.
    @Test func rememberedScalarAnswersAsLookedUpEveryTime() {
        let pieces = ["a", "<p>", " ", "–", "·", "…", "é", "e\u{301}", "\u{301}", "\u{200D}", "\u{200C}",
                      "\u{600}", "\u{0E33}", "\u{0D4E}", "\u{AD}", "👍🏽", "🏽", "🇫🇷", "日本", "\u{111C2}", "\u{903}",
                      "–x", "x–"]
        var random = SeededNumbers(state: 9)
        var joined = 0
        for _ in 0..<20_000 {
            var html = random.soup(pieces, fewerThan: 30)
            let (fast, plain) = html.withUTF8 {
                (TitleSplit.asciiJoinsNeighbour($0), TitleSplit.asciiJoinsNeighbourScalarByScalar($0))
            }
            #expect(fast == plain, "\(html.debugDescription)")
            if plain { joined += 1 }
        }
        #expect(joined > 2_000 && joined < 18_000)
        // ASCII runs around the 32-byte step of the skip (dossier_next_non_ascii).
        let long = ["–", "é", "\u{301}", "\u{200D}", "·", "👍🏽"] + [1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65].map {
            String(repeating: "a", count: $0)
        }
        for _ in 0..<5_000 {
            var html = random.soup(long, fewerThan: 12)
            let (fast, plain) = html.withUTF8 {
                (TitleSplit.asciiJoinsNeighbour($0), TitleSplit.asciiJoinsNeighbourScalarByScalar($0))
            }
            #expect(fast == plain, "\(html.debugDescription)")
        }
    }

    /// A page whose `>` is followed by a combining mark takes the Character walk, which
    /// reads `>\u{301}` as one Character and so no end of a tag there.
    @Test func aMarkJoinedToADelimiterTakesTheCharacterWalk() {
        var page = "<div><h1>T</h1></div>\u{301}<p>x</p>"
        #expect(page.withUTF8 { TitleSplit.cutByBytes($0) } == nil)
        var plain = "<div><h1>T</h1></div><p>x</p>"
        #expect(plain.withUTF8 { TitleSplit.cutByBytes($0) } == .some(21))
        #expect(cut(plain) == ["<div><h1>T</h1></div>", "<p>x</p>"])
    }

    /// A Markdown page in the built-in page template is cut inside its article: the title
    /// first, then (in the layout) "On this page", then the article with the rest; a page
    /// without a title, or not in that article, is cut as before.
    @Test func aMarkdownPageIsCutInsideItsArticle() {
        let open = "<article class=\"content-page\">\n", close = "\n</article>\n"
        let inner = "<h1 id=\"m\">Methods</h1>\n<p>Text.</p>\n<h2 id=\"a\">A</h2>"
        let s = TitleSplit.splitInsideArticle(open + inner + close)
        #expect(s.map { [String($0.head), String($0.body)] }
                == ["<h1 id=\"m\">Methods</h1>", open + "\n<p>Text.</p>\n<h2 id=\"a\">A</h2>" + close])
        #expect(TitleSplit.splitInsideArticle(open + "<p>no title</p>" + close) == nil)
        #expect(TitleSplit.splitInsideArticle("<div>" + inner + "</div>") == nil)
        #expect(TitleSplit.splitInsideArticle(open + inner) == nil)
        // The plain split would put the whole article first.
        #expect(cut(open + inner + close)[1] == "\n")
        // Generated pages: the head and body are the plain split of the article's content.
        let pieces = ["<h1>T</h1>", "<p>x</p>", "\n", "<div>", "</div>", "<h2>A</h2>", "é", "<!-- c -->", "<br>"]
        var random = SeededNumbers(state: 53)
        var cutInside = 0
        for _ in 0..<5_000 {
            let content = random.soup(pieces, fewerThan: 9)
            let plain = TitleSplit.split(content)
            let inside = TitleSplit.splitInsideArticle(open + content + close)
            if plain.head.isEmpty {
                #expect(inside == nil, "\(content)")
            } else {
                #expect(inside.map { [String($0.head), String($0.body)] }
                        == [String(plain.head), open + plain.body + close], "\(content)")
                cutInside += 1
            }
        }
        #expect(cutInside > 1_000)
    }

    /// The cut inside the article made where the content lies in the page (no copy of
    /// it) against the cut of a copy (`splitInsideArticleByCharacter`), on generated
    /// articles, pages that are not the article, and contents the byte walk leaves to the
    /// Character walk (a combining mark after a tag's `>`).
    @Test func cutInPlaceAgreesWithTheCutOfACopy() {
        let open = "<article class=\"content-page\">\n", close = "\n</article>\n"
        let pieces = ["<h1>T</h1>", "<h1 id=\"x\">é</h1>", "<p>x</p>", "\n", "<div>", "</div>", "<h2>A</h2>", "é",
                      "\u{301}", "<!-- c -->", "<br>", "<article class=\"content-page\">"]
        var random = SeededNumbers(state: 71)
        var inside = 0
        for _ in 0..<6_000 {
            let content = random.soup(pieces, fewerThan: 10)
            let page = [open + content + close, content, open + content, content + close][random.next() % 4]
            let fast = TitleSplit.splitInsideArticle(page), plain = TitleSplit.splitInsideArticleByCharacter(page)
            #expect(fast.map { [String($0.head), String($0.body)] } == plain.map { [String($0.head), String($0.body)] },
                    "\(page.debugDescription)")
            if fast != nil { inside += 1 }
        }
        #expect(inside > 500)
    }
}

extension TitleSplit {
    /// The plain twin of ``asciiJoinsNeighbour(_:)``, kept for the tests: both answers
    /// looked up for every run.
    static func asciiJoinsNeighbourScalarByScalar(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        var i = 0
        while i < n {
            // Eight ASCII bytes at a time (a page is mostly ASCII).
            if i + 8 <= n,
               UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            if b[i] < 0x80 { i += 1; continue }
            let start = i
            while i < n && b[i] >= 0x80 { i += 1 }
            // a run of non-ASCII bytes b[start..<i]: its first and its last scalar
            if start > 0, extendsPrevious(scalar(b, at: start)) { return true }
            if i < n {
                var last = i - 1
                while last > start && b[last] & 0xC0 == 0x80 { last -= 1 }
                if joinsNext(scalar(b, at: last)) { return true }
            }
        }
        return false
    }
}
