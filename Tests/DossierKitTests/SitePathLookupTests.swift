import Foundation
import Testing
@testable import DossierKit

/// The site-path look-ups that hash a path fewer times (OutputTree.swift, EarlyLinkCheck.swift,
/// docs/perf-pages.md "Issue #45, site paths hashed fewer times") against their plain twins.
@Suite struct SitePathLookupTests {
    /// Paths from pieces that make duplicates, paths differing only in case, and canonically
    /// equivalent names (`é` as one scalar and as `e` + U+0301).
    static func paths(_ count: Int, seed: UInt64) -> [String] {
        let pieces = ["a", "A", "b", "B", "/", "x.html", "X.HTML", "caf\u{E9}", "cafe\u{301}", "CAF\u{C9}", "\u{130}",
                      "i", "\u{3A3}", "\u{3C3}", "index.html", "ß", "SS"]
        var random = SeededNumbers(state: seed)
        return (0..<count).map { _ in
            var path = "p"
            for _ in 0...(random.next() % 3) { path += pieces[random.next() % pieces.count] }
            return path + ".html"
        }
    }

    /// `claimOnce` (two hashes of a new path) and `claimPlainly` (the claim as first
    /// written) accept and refuse the same claims with the same messages, and leave the
    /// same claims, with the real hash and with one that makes every path collide.
    @Test(arguments: [false, true]) func claimOnceAgreesWithClaimPlainly(collide: Bool) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-claims-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let once = try OutputTree(staging: root.appendingPathComponent("once"))
        let plain = try OutputTree(staging: root.appendingPathComponent("plain"))
        if collide { once.foldHash = { _ in 7 }; plain.foldHash = { _ in 7 } }
        var refused = 0
        for (k, path) in Self.paths(collide ? 400 : 3_000, seed: 3).enumerated() {
            let owner = "unit \(k)"
            let a = Self.refusal { try once.claimOnce(path, owner: owner) }
            let b = Self.refusal { try plain.claimPlainly(path, owner: owner) }
            #expect(a == b, "\(path.debugDescription)")
            if a != nil { refused += 1 }
        }
        #expect(refused > 10)
        #expect(once.owners == plain.owners && once.owners.count > 10)
        once.discard(); plain.discard()
    }

    /// `BuildContext.sameBytes` (lengths, then `memcmp`) against the walk over both texts'
    /// UTF-8: texts stored inline and on the heap, equal lengths with one byte changed at
    /// either end, canonically equivalent texts (equal to `==`, not the same bytes), empty
    /// texts, slices of a longer text and texts made from bytes.
    @Test func sameBytesAgreesWithTheByteWalk() {
        let pieces = ["a", "b", "../", "index.html", "caf\u{E9}", "cafe\u{301}", "\u{E9}", "e\u{301}", "ß", "/",
                      "x-long-enough-to-leave-the-inline-storage", "\u{0}"]
        var random = SeededNumbers(state: 17)
        var texts = (0..<300).map { _ in random.soup(pieces, fewerThan: 6) }
        texts += texts.prefix(40).map { String(decoding: Array($0.utf8), as: UTF8.self) }
        texts += texts.prefix(40).map { String(("<" + $0 + ">").dropFirst().dropLast()) }
        texts += texts.prefix(40).compactMap { $0.isEmpty ? nil : String($0.dropLast()) + "?" }
        texts += texts.prefix(40).compactMap { $0.isEmpty ? nil : "?" + String($0.dropFirst()) }
        var same = 0, equivalent = 0
        for a in texts {
            for b in texts.prefix(200) {
                let walk = a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
                #expect(BuildContext.sameBytes(a, b) == walk, "\(a.debugDescription) \(b.debugDescription)")
                if walk { same += 1 } else if a == b { equivalent += 1 }
            }
        }
        #expect(same > 300 && equivalent > 10, "\(same) \(equivalent)")
    }

    /// The message of the error `claim` throws, nil when it throws none.
    static func refusal(_ claim: () throws -> Void) -> String? {
        do { try claim(); return nil } catch { return "\(error)" }
    }

    /// `OutputTree.files` answers as the set of `paths` (a stream still open is no file),
    /// and the link check gives the same reports with either.
    @Test func siteFilesAnswerAsThePathSet() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let tree = try OutputTree(staging: root.appendingPathComponent("staging"))
        let written = ["index.html", "a/index.html", "a/caf\u{E9}.html", "b/x.csv", "a/B.html"]
        for path in written { try tree.write("x", to: path, owner: "u") }
        let stream = try tree.openStream("a/open.csv", owner: "u")
        let probes = written + ["a/open.csv", "a/cafe\u{301}.html", "a/b.html", "A/index.html", "b", "", "x.html"]
        let files = tree.files, set = tree.paths
        // (The plain twin: a path of the set in the same bytes; a link opens a file by its bytes.)
        func plain(_ p: String) -> Bool { set.contains { $0.utf8.elementsEqual(p.utf8) } }
        for p in probes { #expect(files.contains(p) == plain(p), "\(p.debugDescription)") }
        #expect(!files.contains("a/cafe\u{301}.html") && files.containsCanonically("a/cafe\u{301}.html"))
        let links = ["../index.html", "caf\u{E9}.html", "cafe\u{301}.html", "open.csv", "b.html", "B.html",
                     "../b/x.csv", "../b/", "https://x.example/", "#top", "index.html?q"]
        #expect(LinkChecker.dangling(links, on: "a/index.html", files: files)
                    == LinkChecker.dangling(links, on: "a/index.html", files: set))
        try tree.finishStream(stream)
        #expect(tree.files.contains("a/open.csv") && tree.paths.contains("a/open.csv"))
        tree.discard()
    }

    /// The early check's shortcut for a link equal to the one before it (same bytes) leaves
    /// the links the verdict of each link alone leaves, in order, with canonically equivalent
    /// neighbours (one a file, the other not), repeats and in-doubt links.
    @Test func earlyCheckRepeatsAgreeWithEachLinksVerdict() throws {
        let p = try TestProject(files: ["dossier.yml": "title: T\n", "static/doc.txt": "t"])
        defer { p.remove() }
        let ctx = BuildContext(project: try Project.load(p.root), options: BuildOptions(), log: BuildLog())
        let tree = try OutputTree(staging: p.root.appendingPathComponent("staging"))
        try tree.write("x", to: "sec/caf\u{E9}.html", owner: "sec")
        try tree.write("x", to: "assets/caf\u{E9}.css", owner: "assets")
        ctx.tree = tree
        let early = EarlyLinkCheck(later: ["pages/a/index.html", "index.html"], staticFolder: p.root.path + "/static")
        ctx.earlyLinkCheck = early
        // (`assets/` in the other bytes is in doubt: a file named so may still be copied.)
        let texts = ["../../sec/caf\u{E9}.html", "../../assets/caf\u{E9}.css", "../../assets/cafe\u{301}.css",
                     "../../index.html", "index.html",
                     "../../doc.txt", "../../assets/x.css", "../../assets/x.css#a", "https://x.example/"]
        var random = SeededNumbers(state: 9)
        for _ in 0..<500 {
            var links: [String] = []
            for _ in 0..<(random.next() % 12) {
                links += Array(repeating: texts[random.next() % texts.count], count: random.next() % 3 + 1)
            }
            let page = "pages/a/index.html"
            let plain = links.filter { early.verdict($0, on: page, tree: tree) != .fine }
            let left = ctx.linksLeftAfterEarlyCheck(links, on: page)
            #expect(left.map { $0.map { Array($0.utf8) } } == plain.map { Array($0.utf8) }, "\(links)")
        }
        #expect(!tree.stoppedWriting)
        // A dangling link stops the writing and is left with the others.
        let links = ["index.html", "../b/index.html", "../b/index.html", "../../doc.txt"]
        #expect(ctx.linksLeftAfterEarlyCheck(links, on: "pages/a/index.html") == Array(links[1...]))
        #expect(tree.stoppedWriting)
        tree.discard()
    }
}
