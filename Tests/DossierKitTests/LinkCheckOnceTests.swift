import Foundation
import Testing
@testable import DossierKit

/// Each link of a content page is resolved once when the early check can settle it
/// (EarlyLinkCheck.swift), and the unsafe-scheme test reads bytes: both against the
/// answers of the full link check they stand in for.
@Suite struct LinkCheckOnceTests {
    /// The byte walk against `scheme(_:)` and the set, on strings built from scheme
    /// names in mixed case, the characters a scheme may hold after its first letter,
    /// blanks and controls a browser skips, and non-ASCII letters (`ſ` and the Kelvin
    /// sign lower-case to ASCII letters, but are no scheme).
    @Test func unsafeSchemeByBytesAgreesWithTheScalarWalk() {
        let pieces = ["javascript", "JaVaScRiPt", "vbscript", "file", "FILE", "data", "blob", "https", "mailto", "j",
                      "ava", "script", ":", ":", " ", "\t", "\n", "\u{0}", "\u{1F}", "+", "-", ".", "1", "9", "/",
                      "#", "?", "é", "ſ", "\u{212A}", "x", "datax", "abcdefghijk", "\u{7F}", "%3A"]
        var random = SeededNumbers(state: 11)
        var strings = (0..<20_000).map { _ in random.soup(pieces, fewerThan: 7) }
        strings += ["javascript:alert(1)", " \tjavascript:x", "java\nscript:x", "JAVASCRIPT:x", "1javascript:x",
                    "javascriptx:x", "jаvascript:x", "data:text/html,x", "blob:x", ":javascript", "file:", "file",
                    "vb script:x", "ſile:x", "\u{212A}:x", ""]
        var unsafe = 0
        for s in strings {
            let reference = LinkChecker.scheme(s).map(LinkChecker.unsafeSchemes.contains) ?? false
            #expect(LinkChecker.hasUnsafeScheme(s) == reference, "\(s.debugDescription)")
            if reference { unsafe += 1 }
        }
        #expect(unsafe > 100 && unsafe < strings.count / 2)   // both answers were exercised
        #expect(LinkChecker.unsafe(strings) == strings.filter {
            LinkChecker.scheme($0).map(LinkChecker.unsafeSchemes.contains) ?? false
        })
    }

    /// A link the early check calls fine is never reported by the link check over the
    /// finished site's files, one it calls dangling always is, and the link check over the
    /// links it leaves reports exactly what the check over every link reports.
    @Test func linksTheEarlyCheckSettlesAreNeverReported() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-once-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let staticFolder = root.appendingPathComponent("static")
        try FileManager.default.createDirectory(at: staticFolder.appendingPathComponent("docs"),
                                                withIntermediateDirectories: true)
        try Data("pdf".utf8).write(to: staticFolder.appendingPathComponent("x.pdf"))
        try Data("t".utf8).write(to: staticFolder.appendingPathComponent("docs/a.txt"))
        let tree = try OutputTree(staging: root.appendingPathComponent("staging"))
        for written in ["sec/index.html", "sec/u1/index.html", "sec/data.csv", "pages/old/index.html"] {
            try tree.write("<p>s</p>", to: written, owner: "sec")
        }
        let later: Set<String> = ["pages/a/index.html", "pages/b/index.html", "index.html", "404.html"]
        let early = EarlyLinkCheck(later: later, staticFolder: staticFolder.path)
        // The finished site: the tree now, the pages still to come, the copied assets and static files.
        let files = tree.paths.union(later).union(["assets/dossier.css", "x.pdf", "docs/a.txt"])

        let pieces = ["../", "../", "./", "..", ".", "/", "//", "sec", "u1", "index.html", "data.csv", "pages", "a",
                      "b", "old", "gone", "assets", "dossier.css", "x.pdf", "docs", "a.txt", "#top", "?q=1",
                      "https:", "mailto:", "é", "%20"]
        var random = SeededNumbers(state: 5)
        var seen: [EarlyLinkCheck.Verdict: Int] = [:]
        for round in 0..<3_000 {
            let page = ["pages/a/index.html", "pages/b/index.html", "index.html", "sec/u1/index.html"][round % 4]
            let links = (0..<8).map { _ in random.soup(pieces, fewerThan: 7) }
            var left: [String] = []
            for link in links {
                let verdict = early.verdict(link, on: page, tree: tree)
                seen[verdict, default: 0] += 1
                let reported = LinkChecker.dangling([link], on: page, files: files)
                switch verdict {
                case .fine: #expect(reported.isEmpty, "\(link) on \(page)")
                case .dangling: #expect(reported == [link], "\(link) on \(page)")
                case .inDoubt: left.append(link)
                }
                if verdict == .dangling { left.append(link) }
                #expect(early.certainlyDangling(link, on: page, tree: tree) == (verdict == .dangling))
            }
            let all = LinkChecker.dangling(links, on: page, files: files)
            #expect(LinkChecker.dangling(links.filter(left.contains), on: page, files: files) == all)
        }
        #expect(seen[.fine, default: 0] > 500 && seen[.dangling, default: 0] > 500 && seen[.inDoubt, default: 0] > 50,
                "\(seen)")
        tree.discard()
    }
}
