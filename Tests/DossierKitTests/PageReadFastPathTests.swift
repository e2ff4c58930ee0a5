@testable import DossierKit
import Foundation
@testable import Render
import Testing

/// The page build's short cuts for reading content pages and marking up table cells,
/// each against the plain code it skips, on generated input.
@Suite struct PageReadFastPathTests {
    /// `withClassesASCII` (bytes) against `withClasses` (a String and its Characters)
    /// on random tags: attributes, `class="…"` with and without the classes already
    /// there, quotes, `/`, `\r\n`, empty and one-byte tags. Non-ASCII tags must be
    /// refused (they take the Character walk).
    /// An input's path relative to the project over bytes against the Character twin, on
    /// generated paths and roots: the root itself, a longer name beginning like it
    /// (`/p/ab` under `/p/a`), a root with and without its `/`, non-ASCII names, and a
    /// combining mark right after the root's `/` (no prefix for Characters).
    @Test func inputPathRelativeByBytesAgreesWithTheCharacterWalk() {
        let pieces = ["/", "p", "a", "ab", "content", "x.md", "é", "e\u{301}", "\u{301}", "-"]
        var random = SeededNumbers(state: 41)
        var cut = 0
        for _ in 0..<20_000 {
            let root = "/" + random.soup(["p", "a", "/", "é", "ab"], fewerThan: 4)
            let path = [root + "/", root, ""][random.next() % 3] + random.soup(pieces, fewerThan: 7)
            let reference = BuildContext.pathRelativeByCharacter(path, to: root)
            #expect(BuildContext.path(path, relativeTo: root) == reference, "\(path.debugDescription) \(root)")
            if reference != path { cut += 1 }
        }
        #expect(cut > 2_000 && cut < 18_000)   // both answers were exercised
        #expect(BuildContext.path("/p/a/\u{301}x", relativeTo: "/p/a") == "/p/a/\u{301}x")
    }

    @Test func classesAddedByBytesAgreeWithTheCharacterWalk() {
        let pieces = ["<td", "<th", "<table", " ", "align=\"right\"", "class=\"", "num", "data", "col-empty", "x",
                      "\"", ">", "/", "\r\n", "\n", "=", "-", "é", "class=\"num ", "  ", "\t"]
        let classSets = [["num"], ["col-empty"], ["data"], ["num", "col-empty"], ["x", "num"]]
        var random = SeededNumbers(state: 11)
        var compared = 0, withAttribute = 0
        for _ in 0..<20_000 {
            let tag = Array(random.soup(pieces, fewerThan: 9).utf8)
            let classes = classSets[random.next() % classSets.count]
            let ascii = TableMarkup.withClassesASCII(tag, 0, tag.count, classes)
            let reference = Array(TableMarkup.withClasses(tag, 0, tag.count, classes).utf8)
            if tag.contains(where: { $0 >= 0x80 }) {
                #expect(ascii == nil)
                continue
            }
            #expect(ascii == reference, "\(String(decoding: tag, as: UTF8.self).debugDescription) \(classes)")
            compared += 1
            if String(decoding: tag, as: UTF8.self).contains("class=\"") { withAttribute += 1 }
        }
        // Inside a larger buffer (the cell's offsets), too.
        let page = Array("<tr><td align=\"right\">1</td></tr>".utf8)
        #expect(TableMarkup.tagWithClasses(page, 4, 22, ["num"]) == Array("<td class=\"num\" align=\"right\">".utf8))
        #expect(compared > 10_000 && withAttribute > 1_000)
    }

    /// `appendTag` (the table pass's cell tags, written straight into the table) against
    /// `tagWithClasses` on random tags inside a larger buffer: the same bytes for every
    /// tag, ASCII or not, with or without a class attribute.
    @Test func cellTagsWrittenInPlaceAgreeWithTagWithClasses() {
        let pieces = ["<td", "<th", " ", "align=\"right\"", "class=\"", "num", "x", "\"", ">", "/", "\r\n", "=",
                      "é", "class=\"num ", "\t", "c", "cl"]
        let classSets = [["num"], ["col-empty"], ["num", "col-empty"], ["x", "num"]]
        var random = SeededNumbers(state: 12)
        for _ in 0..<20_000 {
            let tag = Array(random.soup(pieces, fewerThan: 9).utf8)
            let page = Array("<tr>".utf8) + tag + Array("1</td>".utf8)
            let classes = classSets[random.next() % classSets.count]
            var out = Array("x".utf8)
            TableMarkup.appendTag(page, 4, 4 + tag.count, classes,
                                  joined: Array(classes.joined(separator: " ").utf8), to: &out)
            let reference = Array("x".utf8) + TableMarkup.tagWithClasses(page, 4, 4 + tag.count, classes)
            #expect(out == reference, "\(String(decoding: tag, as: UTF8.self).debugDescription) \(classes)")
        }
    }

    /// A content page's path for messages made from its folder's path and its name
    /// (`shownPath`) against `SitePaths.display` of the page's URL, for folders inside
    /// and outside the current folder, names with `.`, `..`, `//`, spaces, `%`, non-ASCII
    /// (refused: nil) and the current folder itself.
    @Test func pagePathForMessagesAgreesWithDisplay() {
        let cwd = "/work/site"
        let folders = ["/work/site/content", "/work/site", "/work/other/content", "/work/site/a b/content",
                       "/work/site/./content", "/work/site/", "/w", "/work/sitex/content"]
        let pieces = ["a", "b.md", "/", ".", "..", " ", "%41", "é", "-", "index.md", "x_y"]
        var random = SeededNumbers(state: 13)
        var compared = 0
        for _ in 0..<5_000 {
            let folderPath = folders[random.next() % folders.count]
            let rel = random.soup(pieces, fewerThan: 6)
            let folder = URL(fileURLWithPath: folderPath, isDirectory: true)
            guard let fast = ContentPage.shownPath(folderPath: folder.path, relative: rel, cwd: cwd) else { continue }
            let url = folder.appending(path: rel, directoryHint: .notDirectory)
            #expect(fast == SitePaths.display(url, cwd: cwd), "\(folderPath) + \(rel.debugDescription)")
            compared += 1
        }
        #expect(compared > 1_000)
    }

    /// The byte answers for paths (`holdsDotOrEmptyComponent`, `components(asciiPath:)`
    /// and `root(from:)`) against the searches and splits over Characters they replace,
    /// on random paths of `/`, `.`, letters, combining marks and non-ASCII letters.
    @Test func pathBytesAgreeWithCharacterSearches() {
        let pieces = ["/", "/", ".", "..", "a", "bc", "index.html", "é", "\u{301}", "//", "/.", "-"]
        var random = SeededNumbers(state: 14)
        var ascii = 0
        for _ in 0..<20_000 {
            let path = random.soup(pieces, fewerThan: 10)
            #expect(SitePaths.holdsDotOrEmptyComponent(path) == (path.contains("/.") || path.contains("//")),
                    "\(path.debugDescription)")
            let split = path.split(separator: "/")
            #expect(SitePaths.root(from: path)
                    == String(repeating: "../", count: max(0, SitePaths.rootByCharacter(path) - 1)))
            guard let parts = SitePaths.components(asciiPath: path) else {
                #expect(path.utf8.contains { $0 >= 0x80 })
                continue
            }
            ascii += 1
            #expect(parts.count == split.count && parts.first == split.first.map(String.init) ?? "",
                    "\(path.debugDescription)")
        }
        #expect(ascii > 2_000)
    }

    /// Which files are content pages, read over bytes, against `PathText`'s extension.
    @Test func markdownNamesByBytesAgreeWithThePathExtension() {
        let pieces = ["a", "/", ".", "md", "MD", "Markdown", "markdow", "mdx", "m", "é", "-", ".md", "..", "x.MD"]
        var random = SeededNumbers(state: 15)
        for _ in 0..<20_000 {
            let path = random.soup(pieces, fewerThan: 8)
            #expect(ContentPage.isMarkdownName(path) == ContentPage.isMarkdownNameByText(path),
                    "\(path.debugDescription)")
        }
    }

    /// A file of a folder whose real path is known is allowed by one `lstat` exactly
    /// when the full check (resolving every link) allows it; links, linked folders and
    /// files outside the project are left to the full check, which the read then runs.
    @Test func folderResolvedOnceAgreesWithTheFullCheck() throws {
        let fm = FileManager.default
        let top = fm.temporaryDirectory.appendingPathComponent("confine-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: top) }
        let project = top.appendingPathComponent("project"), outside = top.appendingPathComponent("outside")
        let content = project.appendingPathComponent("content")
        for dir in [content.appendingPathComponent("a/b"), outside.appendingPathComponent("more")] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        for file in [content.appendingPathComponent("a.md"), content.appendingPathComponent("a/b/c.md"),
                     outside.appendingPathComponent("o.md"), outside.appendingPathComponent("more/m.md")] {
            try Data("# x\n".utf8).write(to: file)
        }
        try fm.createSymbolicLink(atPath: content.appendingPathComponent("in.md").path, withDestinationPath: "a.md")
        try fm.createSymbolicLink(
            atPath: content.appendingPathComponent("out.md").path, withDestinationPath: outside.path + "/o.md")
        try fm.createSymbolicLink(atPath: content.appendingPathComponent("linked").path, withDestinationPath: "a/b")
        try fm.createSymbolicLink(
            atPath: content.appendingPathComponent("away").path, withDestinationPath: outside.path + "/more")
        let files = ["a.md", "in.md", "out.md", "a/b/c.md", "linked/c.md", "away/m.md", "missing.md", "a/b"]
        for allowed in [[], [outside]] {
            let confinement = Confinement(root: project, allowed: allowed)
            for rel in files {
                let url = content.appendingPathComponent(rel)
                let folder = url.deletingLastPathComponent()
                let realFolder = Confinement.real(folder)
                var st = stat()
                let quick = confinement.allowsPlainFile(url.path, realFolder: realFolder, stat: &st)
                let full = (try? confinement.check(url, shown: rel)) != nil
                // The short cut only ever allows what the full check allows …
                if quick { #expect(full, "\(rel) \(allowed)") }
                // … and a plain file in the project is always allowed by it.
                if ["a.md", "a/b/c.md"].contains(rel) { #expect(quick, "\(rel)") }
                // The resolved path it relies on is the full check's.
                if quick { #expect(Confinement.real(url) == realFolder + "/" + url.lastPathComponent) }
                // The read gives the same answer either way.
                func read(_ known: String?) -> Result<Data, Error> {
                    Result {
                        try InputFile.read(url, shown: rel, limit: 100, what: "a page", confinement: confinement,
                                           realFolder: known)
                    }
                }
                switch (read(realFolder), read(nil)) {
                case (.success(let a), .success(let b)): #expect(a == b)
                case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "\(rel)")
                default: Issue.record("\(rel) \(allowed): one read failed, the other did not")
                }
            }
        }
    }

    /// A path shown in messages with the current folder given and without a second,
    /// standardized URL when the path has no `.` components or `//`: as before.
    @Test func displayWithTheFolderGivenAgreesWithDisplay() {
        let pieces = ["a", "b.md", "/", ".", "..", "./", "../", "//", ".x", "x.", " ", "é"]
        let cwd = FileManager.default.currentDirectoryPath
        var random = SeededNumbers(state: 17)
        for _ in 0..<3000 {
            let tail = random.soup(pieces, fewerThan: 8)
            for base in [cwd + "/", "/elsewhere/", cwd + "/../", cwd] {
                let url = URL(fileURLWithPath: base + tail)
                #expect(SitePaths.display(url, cwd: cwd) == SitePaths.display(url), "\(base + tail)")
            }
        }
    }

    /// The bounded read gives the file's bytes, and one byte past the limit for a file
    /// larger than it, whatever the size `stat` reported (a file that grew or shrank).
    @Test func boundedReadGivesTheFileUpToOnePastTheLimit() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        var random = SeededNumbers(state: 5)
        for size in [0, 1, 2, 100, 4095, 4096, 4097, 70_000] {
            let bytes = Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            try bytes.write(to: url)
            for limit in [0, 1, 99, 100, 5000, 100_000] {
                for expected in [0, size / 2, size, size * 2 + 1] {
                    let got = InputFile.readBounded(url.path, expected: expected, limit: limit)
                    #expect(got == bytes.prefix(limit + 1), "size \(size) limit \(limit) expected \(expected)")
                }
            }
        }
        #expect(InputFile.readBounded(url.path + "-missing", expected: 0, limit: 10) == nil)
    }
}
