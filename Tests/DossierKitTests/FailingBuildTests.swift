import Foundation
import Testing
@testable import DossierKit

/// A build that fails on a dangling link stops writing at the first link the check is
/// certain to report, still reports every bad link, and leaves no staging folder and the
/// previous site untouched (docs/output-manifest.md, "A failing build").
@Suite struct FailingBuildTests {
    func name(_ i: Int) -> String { i < 10 ? "p0\(i)" : "p\(i)" }

    func project(pages: Int) throws -> TestProject {
        var files = TestProject.basic
        files["static/files/x.pdf"] = "pdf"
        for i in 0..<pages {
            files["content/pages/\(name(i)).md"] = "# Page \(i)\n\nSee [next](\(name((i + 1) % pages)).md), "
                + "[the file](../../files/x.pdf) and [style](../../assets/dossier.css).\n"
        }
        return try TestProject(files: files)
    }

    @Test func aFailingBuildStopsWritingReportsEveryLinkAndLeavesNoStaging() async throws {
        let p = try project(pages: 30)
        defer { p.remove() }
        try await p.build()
        let before = p.tree()
        // The first page rendered and two later ones get a dangling link.
        for i in [0, 17, 29] {
            let text = try #require(p.read("content/pages/\(name(i)).md"))
            try p.write("content/pages/\(name(i)).md", text + "\nSee [gone](../gone-\(i)/index.html).\n")
        }
        let lines = LockedLines()
        let log = BuildLog(level: .verbose, sink: { lines.add($0) })
        do {
            _ = try await Builder(project: p.root, options: BuildOptions(clean: true), log: log).build()
            Issue.record("the build should fail")
        } catch let e as DossierError {
            for i in [0, 17, 29] {
                #expect(e.diagnostics.contains { $0.message.contains("dangling link '../gone-\(i)/index.html'") })
            }
            #expect(e.diagnostics.last?.message.contains("previous site is unchanged") == true)
        }
        #expect(lines.all.contains { $0.contains("the pages after it were not written") })
        #expect(p.tree() == before)
        let beside = try FileManager.default.contentsOfDirectory(atPath: p.root.path)
        #expect(!beside.contains { $0.contains("staging") }, "\(beside)")
    }

    /// Certain only when no later step can make the target: files already in the tree,
    /// pages still to come, `assets/` and `static/` are all "in doubt".
    @Test func certainlyDanglingIsFalseWhenInDoubt() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-early-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let staticFolder = root.appendingPathComponent("static")
        try FileManager.default.createDirectory(at: staticFolder.appendingPathComponent("docs"),
                                                withIntermediateDirectories: true)
        try Data("pdf".utf8).write(to: staticFolder.appendingPathComponent("x.pdf"))
        let tree = try OutputTree(staging: root.appendingPathComponent("staging"))
        try tree.write("<p>s</p>", to: "sec/index.html", owner: "sec")
        let early = EarlyLinkCheck(later: ["p/index.html", "index.html", "404.html"], staticFolder: staticFolder.path)
        let page = "q/index.html"
        let doubtful = ["../sec/index.html", "../p/index.html#x", "../assets/any.css", "../x.pdf", "../docs",
                        "https://e.org/x", "#top", "../index.html"]
        for link in doubtful { #expect(!early.certainlyDangling(link, on: page, tree: tree), "\(link)") }
        let certain = ["../gone/index.html", "../p/", "/p/index.html", "../x.pdf/y", "../docs/a.txt", "../sec/"]
        let files = tree.paths.union(early.later).union(["x.pdf", "assets/any.css"])
        for link in certain {
            #expect(early.certainlyDangling(link, on: page, tree: tree), "\(link)")
            #expect(LinkChecker.dangling([link], on: page, files: files) == [link], "\(link)")
        }
        tree.discard()
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("staging").path))
    }
}

/// Log lines collected from the build's tasks.
final class LockedLines: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()
    func add(_ s: String) { lock.lock(); lines.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
