import Foundation
import Testing
@testable import DossierKit

/// A link opens a file by its bytes (docs/manifest.md, "Links"): `café` with `é` as one
/// scalar (NFC) and as `e` + U+0301 (NFD) is one Swift `String` but two names on a disk or
/// a server, so a link in one form to a file named in the other is dangling, reported at
/// its line with why, and the early check and the final check agree on it (before, a
/// decomposed link to a static file stopped the writing, then the final check found it
/// and the build failed with "internal error"; a decomposed folder link passed the check
/// and 404'd once published).
@Suite struct UnicodeLinkBytesTests {
    static let composed = "caf\u{E9}"            // é as one scalar
    static let decomposed = "cafe\u{301}"        // e + COMBINING ACUTE ACCENT

    func project(named name: String, home: String) throws -> TestProject {
        var files = TestProject.basic
        files["content/\(name).md"] = "# Café\n\nText.\n"
        files["static/\(name).txt"] = "x\n"
        files["content/index.md"] = "# Welcome\n\nSome text.\n\n" + home + "\n"
        return try TestProject(files: files)
    }

    func failure(_ p: TestProject) async -> DossierError? {
        do { _ = try await p.build(clean: true); return nil } catch let e as DossierError { return e } catch {
            Issue.record("unexpected \(error)"); return nil
        }
    }

    /// Every way a link can name the file or the page in the other form fails the build at
    /// the line that wrote it, saying the bytes differ; nothing is written.
    @Test(arguments: [(composed, decomposed), (decomposed, composed)])
    func aLinkInTheOtherFormIsDanglingAtItsLine(file: String, link: String) async throws {
        for target in ["\(link).txt", "\(link)/", "\(link)/index.html", "\(link)", "./\(link).txt#top"] {
            let p = try project(named: file, home: "See [it](\(target)).")
            defer { p.remove() }
            let failed = await failure(p)
            let e = try #require(failed, "\(target.unicodeScalars.map(\.value))")
            let d = try #require(e.diagnostics.first)
            #expect(d.file == "content/index.md" && d.line == 5, "\(d)")
            #expect(d.message.contains("in other Unicode bytes than the site's file"), "\(d.message)")
            #expect(!e.diagnostics.contains { $0.message.contains("internal error") })
            #expect(p.tree().isEmpty)
        }
        // A link to the page by its source name is rewritten to the page's own path, so
        // either form opens it.
        let p = try project(named: file, home: "See [it](\(link).md).")
        defer { p.remove() }
        try await p.build(clean: true)
        let home = try #require(p.tree()["index.html"])
        #expect(home.range(of: Data("href=\"\(file)/index.html\"".utf8)) != nil)     // (bytes, not Characters)
        #expect(home.range(of: Data("\(link)/index.html".utf8)) == nil)
    }

    /// The same links in the file's own form (raw or percent-encoded) build, and each
    /// written href holds the file's bytes.
    @Test(arguments: [composed, decomposed])
    func aLinkInTheFilesOwnFormBuilds(name: String) async throws {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let p = try project(named: name, home: "[a](\(name).txt) [b](\(name)/) [c](\(encoded).txt) [d](\(name).md)")
        defer { p.remove() }
        try await p.build(clean: true)
        let data = try #require(p.tree()["index.html"])
        let home = String(decoding: data, as: UTF8.self)
        let hrefs = home.components(separatedBy: "href=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let mine = hrefs.filter { $0.removingPercentEncoding?.unicodeScalars.contains("\u{301}") == true
            || $0.removingPercentEncoding?.unicodeScalars.contains("\u{E9}") == true }
        #expect(mine.count >= 4, "\(hrefs)")
        for h in mine {
            let bytes = Array(h.removingPercentEncoding!.utf8)
            #expect(bytes.starts(with: Array(name.utf8)), "\(h)")
        }
    }

    /// The look-ups themselves: exact for the link check, canonical for collisions and the
    /// message; the twin is `String` equality plus a byte comparison.
    @Test func lookUpsCompareBytes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-nfc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let tree = try OutputTree(staging: root.appendingPathComponent("staging"))
        try tree.write("x", to: "\(Self.composed)/index.html", owner: "p")
        let other = "\(Self.decomposed)/index.html", own = "\(Self.composed)/index.html"
        #expect(other == own)                                    // one String…
        #expect(tree.contains(other))                            // …one claim
        #expect(tree.containsExactly(own) && !tree.containsExactly(other))
        let files = tree.files
        #expect(files.contains(own) && !files.contains(other) && files.containsCanonically(other))
        let set: Set<String> = [own]
        #expect(SiteFiles.holds(set, exactly: own) && !SiteFiles.holds(set, exactly: other))
        for (links, page) in [([other, own, "x.html"], "index.html"), (["../\(other)"], "a/index.html")] {
            #expect(LinkChecker.dangling(links, on: page, files: files)
                        == LinkChecker.dangling(links, on: page, files: set))
        }
        #expect(LinkChecker.dangling([other, own], on: "index.html", files: files) == [other])
        let early = EarlyLinkCheck(later: ["\(Self.composed).html"],
                                   staticFolder: root.appendingPathComponent("s").path)
        #expect(early.verdict(own, on: "index.html", tree: tree) == .fine)
        #expect(early.verdict(other, on: "index.html", tree: tree) == .dangling)
        #expect(early.verdict("\(Self.decomposed).html", on: "index.html", tree: tree) == .dangling)
        #expect(early.verdict("\(Self.composed).html", on: "index.html", tree: tree) == .fine)
    }
}
