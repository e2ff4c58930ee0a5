import Foundation
import Testing
@testable import DossierKit

@Suite struct PipelineTests {
    @Test func buildWritesPagesSitemapAndManifestOfEveryFile() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        let report = try await p.build()
        let tree = p.tree()
        #expect(tree["index.html"] != nil)
        #expect(tree["methods/index.html"] != nil)
        #expect(tree["a/index.html"] != nil)
        #expect(tree["404.html"] != nil)               // every site has its not-found page
        #expect(report.pagesRendered == 5)
        let sitemap = try #require(p.read("_site/sitemap.xml"))
        #expect(sitemap.contains("<loc>https://example.org/t/methods/</loc>"))
        #expect(sitemap.contains("<loc>https://example.org/t/</loc>"))
        #expect(!sitemap.contains("404"))
        // The manifest lists every file with its real size and hash.
        let manifest = try SiteManifest.load(p.root.appendingPathComponent("_site.manifest.json"))
        #expect(Set(manifest.files.map(\.path)) == Set(tree.keys))
        for f in manifest.files {
            #expect(f.size == Int64(tree[f.path]!.count))
            #expect(f.sha256 == Hashing.sha256(tree[f.path]!))
        }
        #expect(manifest.inputs?.contains { $0.path == "content/methods.md" } == true)
        // Links to .md sources became links to the pages.
        #expect(
            tree["index.html"].map { String(decoding: $0, as: UTF8.self) }?.contains("href=\"methods/index.html\"")
                == true)
    }

    @Test func twoBuildsOfTheSameProjectGiveIdenticalTrees() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build(clean: true)
        let first = p.tree()
        let manifest1 = p.read("_site.manifest.json")
        try await p.build(clean: true)
        #expect(p.tree() == first)
        #expect(p.read("_site.manifest.json") == manifest1)
        // And an incremental build of unchanged inputs too.
        let report = try await p.build()
        #expect(report.pagesRendered == 0)
        #expect(p.tree() == first)
    }

    @Test func changingOneContentFileRerendersOnlyThatPage() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build()
        let before = p.tree()
        try p.write("content/b.md", "---\ntitle: Page B\n---\nNew text of B.\n")
        let report = try await p.build()
        #expect(report.pagesRendered == 1)
        #expect(report.pagesReused == 4)
        let after = p.tree()
        #expect(String(decoding: after["b/index.html"]!, as: UTF8.self).contains("New text of B."))
        for (path, data) in before where path != "b/index.html" && path != "sitemap.xml" {
            #expect(after[path] == data, "\(path) changed")
        }
        // A clean build gives the same bytes as the incremental one.
        try await p.build(clean: true)
        #expect(p.tree() == after)
    }

    @Test func aTitleChangeRerendersEveryPageBecauseNavigationChanged() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build()
        try p.write("content/b.md", "---\ntitle: Page Bee\n---\nText of B.\n")
        let report = try await p.build()
        #expect(report.pagesRendered == 5)             // with the home page's unit, 404.html
    }

    @Test func failedBuildWithBadManifestLeavesPreviousSiteByteIdentical() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build()
        let before = p.tree()
        let manifestBefore = p.read("_site.manifest.json")
        try p.write("dossier.yml", "title: Test site\nbase_url: https://example.org/t/\ncolour: blue\n")
        try p.write("content/a.md", "---\ntitle: Changed\n---\nChanged.\n")
        do {
            try await p.build()
            Issue.record("build should have failed")
        } catch let e as DossierError {
            let d = try #require(e.diagnostics.first)
            #expect(d.file?.hasSuffix("dossier.yml") == true)
            #expect(d.line == 3)
            #expect(d.message.contains("unknown key 'colour'"))
        }
        #expect(p.tree() == before)
        #expect(p.read("_site.manifest.json") == manifestBefore)
        #expect(
            !FileManager.default.fileExists(atPath: p.root.appendingPathComponent("._site.staging-\(getpid())").path))
    }

    @Test func danglingLinkFailsTheBuildNamingFileLineAndLeavesSiteUntouched() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build()
        let before = p.tree()
        try p.write("content/a.md", "---\ntitle: Page A\n---\nText of A.\n\nSee [missing](../nowhere/index.html).\n")
        do {
            try await p.build()
            Issue.record("build should have failed")
        } catch let e as DossierError {
            let d = try #require(e.diagnostics.first)
            #expect(d.file?.hasSuffix("content/a.md") == true)
            #expect(d.line == 6)
            #expect(d.message.contains("dangling link '../nowhere/index.html'"))
            #expect(e.diagnostics.last?.message.contains("previous site is unchanged") == true)
        }
        #expect(p.tree() == before)
    }

    @Test func projectTemplateOverrideWinsOverBuiltIn() async throws {
        var files = TestProject.basic
        files["templates/page.mustache"] = "<article class=\"custom\">OVERRIDE {{title}}{{{content}}}</article>"
        let p = try TestProject(files: files)
        defer { p.remove() }
        try await p.build()
        let html = try #require(p.read("_site/a/index.html"))
        #expect(html.contains("<article class=\"custom\">OVERRIDE Page A"))
        #expect(html.contains("<!DOCTYPE html>"))   // the built-in layout still wraps it
    }

    @Test func checkWritesNothing() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        let report = try await p.build(check: true)
        #expect(report.files > 0)
        #expect(!FileManager.default.fileExists(atPath: p.root.appendingPathComponent("_site").path))
        #expect(!FileManager.default.fileExists(atPath: p.root.appendingPathComponent("_site.manifest.json").path))
        #expect(!FileManager.default.fileExists(atPath: p.root.appendingPathComponent(".dossier").path))
    }

    @Test func draftsAreLeftOutAndFrontMatterErrorsNameTheLine() async throws {
        var files = TestProject.basic
        files["content/draft.md"] = "---\ntitle: Draft\ndraft: true\n---\nx\n"
        let p = try TestProject(files: files)
        defer { p.remove() }
        try await p.build()
        #expect(p.tree()["draft/index.html"] == nil)
        try p.write("content/a.md", "---\ntitle: A\nweight: heavy\n---\nx\n")
        await #expect(throws: DossierError.self) { try await p.build() }
        do { try await p.build() } catch let e as DossierError {
            #expect(e.diagnostics.first?.line == 3)
            #expect(e.diagnostics.first?.message.contains("weight") == true)
        }
    }
}

@Suite struct ManifestTests {
    @Test func unknownTopLevelKeyIsAnErrorWithLine() throws {
        let p = try TestProject(files: ["dossier.yml": "title: x\n\nrecal:\n  strings: s.txt\n"])
        defer { p.remove() }
        #expect(throws: DossierError.self) { try Project.load(p.root) }
        do { _ = try Project.load(p.root) } catch let e as DossierError {
            #expect(e.diagnostics[0].line == 3)
            #expect(e.diagnostics[0].message.contains("unknown key 'recal'"))
        }
    }

    @Test func yamlSyntaxErrorNamesLine() throws {
        let p = try TestProject(files: ["dossier.yml": "title: x\ndescription: [unclosed\n"])
        defer { p.remove() }
        do { _ = try Project.load(p.root); Issue.record("should fail") } catch let e as DossierError {
            #expect(e.diagnostics[0].file?.hasSuffix("dossier.yml") == true)
            #expect(e.diagnostics[0].line != nil)
        }
    }

    @Test func defaultsAndBaseURLNormalisation() throws {
        let p = try TestProject(files: ["dossier.yml": "title: T\nbase_url: https://a.org/x\n"])
        defer { p.remove() }
        let project = try Project.load(p.root)
        #expect(project.output.lastPathComponent == "_site")
        #expect(project.baseURL == "https://a.org/x/")
        #expect(project.markdownOptions.unsafeHTML == false)
    }

    @Test func relativeBaseURLAndEscapingOutputAreRejected() throws {
        for yml in ["title: T\nbase_url: example.org\n", "title: T\noutput: ../../etc\n"] {
            let p = try TestProject(files: ["dossier.yml": yml])
            defer { p.remove() }
            do { _ = try Project.load(p.root); Issue.record("should fail: \(yml)") } catch let e as DossierError {
                #expect(e.diagnostics[0].line == 2)
            }
        }
    }

    @Test func sectionConfigReportsMissingFilesWithLine() throws {
        let p = try TestProject(files: ["dossier.yml": "x: 1\n"])
        defer { p.remove() }
        let node = try ConfigNode.parse("logs: data/*.jsonl\nstrings: s.txt\n", file: "dossier.yml")
        let cfg = SectionConfig(key: "recall", file: "dossier.yml", root: p.root, node: node)
        do { _ = try cfg.path("strings"); Issue.record("should fail") } catch let e as DossierError {
            #expect(e.diagnostics[0].line == 2)
            #expect(e.diagnostics[0].message.contains("file not found"))
        }
        try p.write("data/b.jsonl", "")
        try p.write("data/a.jsonl", "")
        try p.write("data/c.txt", "")
        #expect(try cfg.paths("logs").map(\.lastPathComponent) == ["a.jsonl", "b.jsonl"])
        #expect(cfg.unknownKeys().isEmpty)
    }
}

@Suite struct LinkCheckerTests {
    @Test func findsHrefAndSrcButNotDataAttributesOrFragments() {
        let html =
            "<a href=\"a/index.html\">x</a><img src='i.png' data-src=\"no.png\"><a href=\"#top\">t</a><a "
                + "href=\"https://x.org\">e</a><a\nhref=\"q?x=1&amp;y=2\">"
        #expect(LinkChecker.links(in: html) == ["a/index.html", "i.png", "https://x.org", "q?x=1&y=2"])
    }

    @Test func danglingResolvesRelativeToThePage() {
        let files: Set<String> = ["index.html", "a/index.html", "assets/x.css"]
        #expect(
            LinkChecker.dangling(
                ["../assets/x.css", "../index.html", "index.html#top", "https://e.org/"], on: "a/index.html",
                files: files
            ).isEmpty)
        #expect(LinkChecker.dangling(["../b/", "x.css"], on: "a/index.html", files: files) == ["../b/", "x.css"])
    }

    /// From `file://` a link to a folder opens a listing and `/x` leaves the site: both
    /// are dangling even when the folder's index.html exists.
    @Test func linksResolveTheWayFileURLsDo() {
        let files: Set<String> = ["index.html", "a/index.html", "assets/x.css"]
        let bad = ["./", ".", "..", "../a/", "../a", "/a/index.html", "/assets/x.css", "../a/?x=1", "../a#top"]
        #expect(LinkChecker.dangling(bad, on: "a/index.html", files: files) == bad)
        #expect(
            LinkChecker.dangling(
                ["a/index.html?x=1#top", "assets/x.css", "./a/index.html"], on: "index.html", files: files
            ).isEmpty)
    }
}

@Suite struct ContentLinksTests {
    func page(_ relative: String) -> ContentPage {
        ContentPage(
            source: URL(fileURLWithPath: "/p/content/" + relative), relative: relative, title: relative, summary: "",
            weight: 0, draft: false, toc: nil, raw: Data())
    }

    /// The search for the next `href="` (from one `=` after `f` or `c` to the next)
    /// against its memchr twin, on generated markup of `href`, `src`, `=`, quotes and
    /// near misses, from every start.
    @Test func hrefSearchAgreesWithTheMemchrWalk() {
        let pieces = ["href=\"", "href='", "hre", "f=\"", "h", "ref=\"", "src=\"", "=", "\"", "x", "<a ", "f", "c=",
                      "hhref=\""]
        var random = SeededNumbers(state: 88)
        var found = 0
        for _ in 0..<8_000 {
            let text = Array(random.soup(pieces, fewerThan: 12).utf8)
            let from = text.isEmpty ? 0 : random.next() % (text.count + 1)
            text.withUnsafeBufferPointer { b in
                guard b.baseAddress != nil else { return }
                let fast = ContentLinks.nextHref(in: b, from: from)
                let plain = ContentLinks.nextHrefByMemchr(in: b, from: from)
                #expect(fast == plain, "\(String(decoding: text, as: UTF8.self)) from \(from)")
                if plain != nil { found += 1 }
            }
        }
        #expect(found > 1_500)
    }

    /// The output path is made once, from `relative`, and made again when it changes.
    @Test func outputPathFollowsTheRelativePath() {
        let cases = ["index.md": "index.html", "methods.md": "methods/index.html", "a/index.md": "a/index.html",
                     "a/b.markdown": "a/b/index.html", "index.markdown": "index.html",
                     "x/index.markdown": "x/index.html"]
        for (relative, output) in cases {
            var p = page("first.md")
            #expect(p.outputPath == "first/index.html")
            p.relative = relative
            #expect(p.outputPath == output, "\(relative)")
            #expect(page(relative).outputPath == output && p.isHome == (output == "index.html"))
        }
    }

    @Test func mdLinksBecomePageLinksAndEverythingElseIsKeptByteForByte() {
        let all = [page("index.md"), page("methods.md"), page("a/b.md"), page("a/c.markdown")]
        let map = ContentLinks.map(all)
        let html = "<p><a href=\"../methods.md#part\">m</a> <a href=\"c.markdown\">c</a> "
            + "<a href=\"https://x.org/readme.md\">ext</a> <a href=\"missing.md\">?</a> <a href=\"/a/b.md\">abs</a> "
            + "é</p>"
        let out = ContentLinks.rewrite(html, from: all[2], map: map)
        #expect(
            out == "<p><a href=\"../../methods/index.html#part\">m</a> <a href=\"../../a/c/index.html\">c</a> "
                + "<a href=\"https://x.org/readme.md\">ext</a> <a href=\"missing.md\">?</a> <a "
                + "href=\"../../a/b/index.html\">abs</a> é</p>"
        )
        let plain = "<p><a href=\"x.html\">x</a> text.md</p>"
        #expect(ContentLinks.rewrite(plain, from: all[0], map: map) == plain)
    }
}

@Suite struct FrontMatterTests {
    func split(_ s: String) -> (yaml: String, body: String, line: Int)?? {
        let d = Data(s.utf8)
        guard let r = ContentPage.splitFrontMatter(d) else { return nil }
        guard let (y, b, l) = r else { return .some(nil) }
        return .some((String(decoding: d[y], as: UTF8.self), String(decoding: d[b...], as: UTF8.self), l))
    }

    @Test func delimitersBodiesAndLineNumbers() throws {
        #expect(split("# no front matter\n") == nil)
        #expect(split("---\ntitle: x\n") != nil && split("---\ntitle: x\n")! == nil)     // never closes
        let a = try #require(split("---\ntitle: x\nweight: 2\n---\n# Body\n")!)
        #expect(a.yaml == "title: x\nweight: 2\n")
        #expect(a.body == "# Body\n")
        #expect(a.line == 4)
        let b = try #require(split("--- \r\ntitle: y\r\n...\r\nText")!)                  // CRLF, trailing blanks, "..."
        #expect(b.yaml == "title: y\r\n")
        #expect(b.body == "Text")
        #expect(b.line == 3)
        let c = try #require(split("---\n---")!)                                        // empty, closing line last
        #expect(c.yaml == "" && c.body == "" && c.line == 2)
        #expect(split("----\n---\n") == nil)  // four dashes is not a delimiter
    }

    @Test func pageLoadUsesTheSplit() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("p.md")
        try Data("---\r\nsummary: s\r\n---\r\n\r\n# Heading here\r\n\r\nText.\r\n".utf8).write(to: url)
        let p = try ContentPage.load(url, relative: "p.md")
        #expect(p.title == "Heading here")
        #expect(p.summary == "s")
        #expect(p.bodyLine == 4)
        #expect(p.body.hasPrefix("\r\n# Heading"))
    }

    /// The body is kept as a part of the file's bytes: it is the text after the front
    /// matter, or the whole text less a leading byte order mark (which the text drops);
    /// front matter may follow the mark.
    @Test func theBodyIsThePartOfTheFileAfterTheFrontMatterOrTheMark() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(file: [UInt8], body: String, title: String)] = [
            ([0xEF, 0xBB, 0xBF] + Array("# Marked\n\nText é.\n".utf8), "# Marked\n\nText é.\n", "Marked"),
            (Array("# Plain\n".utf8), "# Plain\n", "Plain"),
            (Array("---\ntitle: T\n---\n\u{301}é\n".utf8), "\u{301}é\n", "T"),
            ([0xEF, 0xBB, 0xBF] + Array("---\ntitle: x\n---\n".utf8), "", "x"),
            ([0xEF, 0xBB, 0xBF] + Array("---\nsummary: s\n---\n# Hé\n".utf8), "# Hé\n", "Hé"),
        ]
        for (k, c) in cases.enumerated() {
            let url = dir.appendingPathComponent("p\(k).md")
            try Data(c.file).write(to: url)
            let p = try ContentPage.load(url, relative: "p.md")
            #expect(p.body == c.body && p.title == c.title, "case \(k)")
            #expect(p.withBodyBytes { Array($0) } == Array(c.body.utf8), "case \(k)")
            #expect(p.raw == Data(c.file), "case \(k)")
        }
    }
}

@Suite struct NavigationTests {
    /// The byte count of path components against the split over Characters, on generated
    /// paths with empty components, leading and trailing `/`, and non-ASCII text (a `/`
    /// followed by a combining mark is no separator for the Character split).
    @Test func topLevelByBytesAgreesWithTheCharacterSplit() {
        let pieces = ["a", "index.html", "/", "/", "//", "é", "\u{301}", "x.y", "-"]
        var random = SeededNumbers(state: 31)
        var top = 0
        for _ in 0..<20_000 {
            let path = random.soup(pieces, fewerThan: 8)
            let reference = Navigation.isTopLevelByCharacter(path)
            #expect(Navigation.isTopLevel(path) == reference, "\(path.debugDescription)")
            if reference { top += 1 }
        }
        #expect(top > 1_000 && top < 19_000)   // both answers were exercised
        #expect(!Navigation.isTopLevel("a/\u{301}b") && Navigation.isTopLevel("methods/index.html"))
    }
}
