import CMarkArena
import Foundation
import Testing
@testable import Render

@Suite struct MarkdownTests {
    @Test func gfmTableTaskListScriptAndAnchorRenderToExpectedHTML() {
        let md = """
        # Results & notes

        | Name | Score |
        |:-----|------:|
        | Ada  | 12 |

        - [x] done
        - [ ] todo

        <script>alert(1)</script>

        ~~old~~ see https://example.org

        ## Results & notes
        """
        let out = Markdown.render(md)
        let expected = """
        <h1 id="results--notes"><a class="anchor" href="#results--notes" aria-hidden="true" \
        tabindex="-1">#</a>Results &amp; notes</h1>
        <table>
        <thead>
        <tr>
        <th align="left">Name</th>
        <th align="right">Score</th>
        </tr>
        </thead>
        <tbody>
        <tr>
        <td align="left">Ada</td>
        <td align="right">12</td>
        </tr>
        </tbody>
        </table>
        <ul>
        <li><input type="checkbox" checked="" disabled="" aria-label="Done" /> done</li>
        <li><input type="checkbox" disabled="" aria-label="Not done" /> todo</li>
        </ul>
        <!-- raw HTML omitted -->
        <p><del>old</del> see <a href="https://example.org">https://example.org</a></p>
        <h2 id="results--notes-1"><a class="anchor" href="#results--notes-1" aria-hidden="true" \
        tabindex="-1">#</a>Results &amp; notes</h2>

        """
        #expect(out.html == expected)
        #expect(out.toc == [TOCEntry(level: 1, text: "Results & notes", anchor: "results--notes"),
                            TOCEntry(level: 2, text: "Results & notes", anchor: "results--notes-1")])
        #expect(!out.html.contains("<script"))
    }

    @Test func javascriptLinksAreDroppedInSafeMode() {
        let out = Markdown.render("[x](javascript:alert(1)) ![i](vbscript:foo)")
        #expect(!out.html.contains("javascript:"))
        #expect(!out.html.contains("vbscript:"))
    }

    @Test func unsafeOptInKeepsRawHTMLButTagfilterStillNeutralisesScript() {
        let out = Markdown.render("<b>bold</b>\n\n<script>x</script>", options: MarkdownOptions(unsafeHTML: true))
        #expect(out.html.contains("<b>bold</b>"))
        #expect(out.html.contains("&lt;script>"))
    }

    @Test func slugsFollowGitHubRules() {
        #expect(Slug.make("Hello, World!") == "hello-world")
        #expect(Slug.make("Ünïcode  Title") == "ünïcode--title")
        #expect(Slug.make("???") == "section")
        var r = Slug.Registry()
        #expect(r.unique("a") == "a")
        #expect(r.unique("a") == "a-1")
        #expect(r.unique("a-1") == "a-1-1")
        #expect(r.unique("a") == "a-2")
    }

    /// The registry's list of a few anchors (moving to a dictionary past 16) against the
    /// plain dictionary registry, on random pages of up to 60 headings whose slugs collide
    /// with each other and with the suffixed forms (`a`, `a-1`, `a-1-1`, `a-2`).
    @Test func slugRegistryAgreesWithADictionary() {
        let pieces = ["a", "b", "-1", "-2", "-1-1", "section", "x-3"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var fast = Slug.Registry(), plain = DictionaryRegistry()
            for _ in 0..<Int.random(in: 0...60, using: &rng) {
                let second = Bool.random(using: &rng) ? "" : pieces.randomElement(using: &rng)!
                let base = pieces.randomElement(using: &rng)! + second
                #expect(fast.unique(base) == plain.unique(base), "\(base)")
            }
        }
    }
}

/// The registry as it was: every anchor hashed into a dictionary.
private struct DictionaryRegistry {
    var seen: [String: Int] = [:]
    mutating func unique(_ base: String) -> String {
        if let n = seen.updateValue(0, forKey: base) {
            var k = n + 1
            var candidate = base + "-" + String(k)
            while seen[candidate] != nil { k += 1; candidate = base + "-" + String(k) }
            seen[base] = k
            seen[candidate] = 0
            return candidate
        }
        return base
    }
}

/// The renderer allocates from a per-thread arena (Sources/CMarkArena) and walks only
/// container blocks for headings; these pin both down.
@Suite struct MarkdownArenaTests {
    static let doc = """
    # Top

    > ## Quoted heading
    >
    > - item
    >
    >   ### Heading in a list item

    | a | b |
    |---|---|
    | `x` | **y** |

    1. one
    2. two

       #### Deep *emphasis* `code`

    Paragraph with [a link](https://example.org) and ~~strike~~.

    ## Top
    """

    @Test func headingsInsideQuotesAndListsAreFoundInOrder() {
        let toc = Markdown.render(Self.doc).toc
        #expect(toc.map(\.level) == [1, 2, 3, 4, 2])
        #expect(toc.map(\.anchor) == ["top", "quoted-heading", "heading-in-a-list-item", "deep-emphasis-code", "top-1"])
        #expect(toc[3].text == "Deep emphasis code")
    }

    @Test func arenaIsEmptyAfterEveryRender() {
        _ = Markdown.render(Self.doc)
        #expect(dossier_arena_used() == 0)
        // A document far larger than the first 1 MiB chunk.
        let big = String(repeating: Self.doc + "\n\n", count: 3000)
        let out = Markdown.render(big)
        #expect(out.toc.count == 15000)
        #expect(dossier_arena_used() == 0)
        #expect(Markdown.render(Self.doc).html == Markdown.render(Self.doc).html)
    }

    /// A document whose tree needs more than 8 MiB of arena takes its later chunks
    /// ready-made from a background thread; the result must not depend on it.
    @Test func largeDocumentsRenderTheSameWithChunksPreparedInTheBackground() async {
        let big = String(repeating: Self.doc + "\n\n", count: 6000)
        let before = dossier_arena_spares_taken()
        let first = Markdown.render(big)
        #expect(dossier_arena_spares_taken() > before)
        #expect(dossier_arena_used() == 0)
        let again = await withTaskGroup(of: RenderedMarkdown.self) { group in
            for _ in 0..<3 { group.addTask { Markdown.render(big) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(again.count == 3 && again.allSatisfy { $0 == first })
        // Pieces of the document, rendered alone, appear whole in the large render.
        #expect(first.html.hasPrefix(Markdown.render(Self.doc).html.prefix(200)))
        #expect(first.toc.count == 30000)
    }

    @Test func concurrentRendersOnManyThreadsEqualSequentialOnes() async {
        let docs = (0..<64).map { i in
            let filler = String(repeating: "\n\nfiller *\(i)*", count: i * 40)
            return Self.doc.replacingOccurrences(of: "Top", with: "Top \(i)") + filler
        }
        let sequential = docs.map { Markdown.render($0) }
        let parallel = await withTaskGroup(of: (Int, RenderedMarkdown).self) { group in
            for (i, d) in docs.enumerated() { group.addTask { (i, Markdown.render(d)) } }
            var out = [RenderedMarkdown?](repeating: nil, count: docs.count)
            for await (i, r) in group { out[i] = r }
            return out.map { $0! }
        }
        #expect(parallel == sequential)
    }

    /// libcmark-gfm's table of extension characters is process-wide and each parse used
    /// to clear it when done (see Sources/CMarkArena/special_chars.c): under load other
    /// threads then rendered `~~x~~` and bare URLs literally.
    @Test func extensionsWorkWhileOtherThreadsFinishTheirParses() async {
        let doc = String(
            repeating: "Some ~~struck~~ text and www.example.org, also https://example.org/x.\n\n", count: 20)
        let expected = Markdown.render(doc).html
        #expect(expected.contains("<del>struck</del>") && expected.contains("<a href=\"http://www.example.org\">"))
        let bad = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var bad = 0
                    for _ in 0..<400 where Markdown.render(doc).html != expected { bad += 1 }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(bad == 0)
    }

    @Test func renderingFromAFileDescriptorEqualsRenderingTheString() throws {
        let big = String(repeating: Self.doc + "\n\n", count: 500)   // several 64 KiB reads
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("md-\(UUID().uuidString).md")
        try Data(big.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        var bytes: [UInt8] = []
        let toc = try Markdown.render(fileDescriptor: fd) { bytes.append(contentsOf: $0) }
        let direct = Markdown.render(big)
        #expect(String(decoding: bytes, as: UTF8.self) == direct.html)
        #expect(toc == direct.toc)
    }

    @Test func asciiSlugsMatchTheUnicodeRule() {
        #expect(Slug.make("A-b_c 9\t!?") == "a-b_c-9")
        // Appending a non-ASCII letter forces the Unicode path; it must agree on the rest.
        for s in ["Hello, World!", "Results & notes (2024)", "x  y", "MiXeD_case-42", "#$%^&*"] {
            let unicode = Slug.make(s + "é")
            let ascii = Slug.make(s)
            #expect(unicode == (ascii == "section" ? "é" : ascii + "é"), "\(s)")
        }
    }
}

/// User text in generated Markdown (MarkdownText): rendered with raw HTML allowed, as a
/// permissive wiki would, it is still exactly the text.
@Suite struct MarkdownTextTests {
    static let hostile = [
        "<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "[click](javascript:alert(3))",
        "![i](https://evil.example/x.png)", "**bold** _em_ ~~gone~~", "`tick` ``two`` | pipe |",
        "<!-- hidden --> &amp; &lt;b&gt;", "# heading", "1. list", "- bullet", "> quote", "back\\slash\\",
    ]

    @Test func escapedTextRendersAsItselfEvenWithRawHTMLAllowed() {
        let unsafe = MarkdownOptions(unsafeHTML: true)
        for s in Self.hostile {
            let html = Markdown.render(MarkdownText.text(s), options: unsafe).html
            #expect(
                !html.contains("<script") && !html.contains("<img") && !html.contains("javascript:alert(3)\"")
                    && !html.contains("<em>")
                    && !html.contains("<h1") && !html.contains("<ol") && !html.contains("<ul") && !html.contains("<!--")
                    && !html.contains("<blockquote") && !html.contains("<del>") && !html.contains("<code>"),
                "\(s) → \(html)")
            // (A bare https:// URL may become a link through GFM's autolink extension: an
            // http(s) link, shown with the same text.)
            if s.contains("://") { continue }
            #expect(html == "<p>" + HTML.escape(s).replacingOccurrences(of: "&#39;", with: "'") + "</p>\n",
                    "\(s) → \(html)")
        }
    }

    @Test func tableCellsStayOneCellAndCodeSpansCannotBeClosed() {
        let unsafe = MarkdownOptions(unsafeHTML: true)
        let md = "| a | b |\n|---|---|\n| \(MarkdownText.text("x | y\nz")) | \(MarkdownText.code("``<b>|`")) |\n"
        let html = Markdown.render(md, options: unsafe).html
        #expect(html.components(separatedBy: "<td>").count == 3, "\(html)")
        #expect(html.contains("<code>``&lt;b&gt;|`</code>"), "\(html)")
        #expect(!html.contains("<b>"))
    }

    @Test func controlCharactersAreReplaced() {
        #expect(MarkdownText.text("a\u{7}b\u{1B}") == "a\u{FFFD}b\u{FFFD}")
        #expect(MarkdownText.code("a\u{0}") == "`a\u{FFFD}`")
    }
}
