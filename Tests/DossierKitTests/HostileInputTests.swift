import Foundation
import Testing
@testable import DossierKit

/// Manifest values and inputs an attacker (or a cloned project) controls.
@Suite struct HostileInputTests {
    func loadError(_ yml: String) throws -> Diagnostic? {
        let p = try TestProject(files: ["dossier.yml": yml])
        defer { p.remove() }
        do { _ = try Project.load(p.root); return nil } catch let e as DossierError { return e.diagnostics.first }
    }

    @Test func outputMustBeAFolderInsideTheProjectAndNotAnInput() throws {
        for bad in [
            "/home/me/Documents", "../x", "a/../../b", ".", "data", "Content", "static/x", ".dossier", ".hidden", "~/x",
            "a\\b", "dossier.yml"
        ] {
            let d = try loadError("title: T\noutput: \"\(bad)\"\n")
            #expect(d?.line == 2, "\(bad)")
            #expect(d?.message.hasPrefix("output:") == true, "\(bad): \(String(describing: d))")
        }
        for ok in ["_site", "public", "build/site", "_site/"] {
            #expect(try loadError("title: T\noutput: \(ok)\n") == nil, "\(ok)")
        }
    }

    @Test func anExistingFolderNotMadeByDossierIsRefusedAndLeftAlone() async throws {
        var files = TestProject.basic
        files["dossier.yml"] = "title: T\noutput: out\n"
        files["out/mine.txt"] = "keep"
        let p = try TestProject(files: files)
        defer { p.remove() }
        await #expect(throws: DossierError.self) { try await p.build() }
        #expect(p.read("out/mine.txt") == "keep")
        try FileManager.default.removeItem(at: p.root.appendingPathComponent("out/mine.txt"))
        try await p.build()                     // empty: fine
        try await p.build(clean: true)          // made by Dossier: fine
        #expect(p.read("out/index.html") != nil)
    }

    @Test func baseURLMustBeHTTP() throws {
        for bad in [
            "javascript:alert(1)", "JAVASCRIPT://x", "file:///etc", "example.org", "https://", "http://a b/",
            "https://u:p@h/"
        ] {
            #expect(try loadError("title: T\nbase_url: \"\(bad)\"\n")?.line == 2, "\(bad)")
        }
        #expect(try loadError("title: T\nbase_url: HTTPS://example.org/a\n") == nil)
    }

    /// The time limit only stops a hang (an expansion of 9^9 nodes); the limit itself is
    /// shown by the error.
    @Test(.timeLimit(.minutes(1))) func aliasBombsAreRefusedWithALine() throws {
        var yml = "a: &a [x, x, x, x, x, x, x, x, x]\n"
        var prev = "a"
        for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
            yml += "\(name): &\(name) [" + Array(repeating: "*\(prev)", count: 9).joined(separator: ", ") + "]\n"
            prev = name
        }
        do { _ = try ConfigNode.parse(yml, file: "x.yml"); Issue.record("should fail") } catch let e as DossierError {
            #expect(e.diagnostics[0].message.contains("YAML aliases expand"))
            #expect(e.diagnostics[0].line != nil)
        }
        let small = try ConfigNode.parse("a: &a [1, 2]\nb: *a\n", file: "x.yml")
        guard case .map(let entries, _) = small else { Issue.record("not a map"); return }
        #expect(entries[1].value.scalars == ["1", "2"])
    }

    @Test func staleStagingFoldersOfDeadProcessesAreSwept() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A pid that surely is not running: a child that has exited and been reaped.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run(); p.waitUntilExit()
        let dead = p.processIdentifier
        for name in [
            "._site.staging-\(dead)", "._site.old-\(dead)", "._site.staging-\(getpid())", "._other.staging-\(dead)",
            "._site.staging-x"
        ] {
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent(name + "/a"), withIntermediateDirectories: true)
        }
        let removed = StagingDebris.sweep(beside: dir.appendingPathComponent("_site"))
        #expect(removed == ["._site.old-\(dead)", "._site.staging-\(dead)"])
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["._other.staging-\(dead)", "._site.staging-\(getpid())", "._site.staging-x"])
    }

    @Test func outputPathsDifferingOnlyInCaseAreRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("case-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try OutputTree(staging: dir)
        try tree.write("a", to: "p/Alice/index.html", owner: "recall/p-Alice")
        #expect(throws: DossierError.self) { try tree.write("b", to: "p/alice/index.html", owner: "recall/p-alice") }
    }

    /// The case check keeps a hash of each lower-cased path, not the text: with a hash
    /// under which every path collides, distinct paths are still accepted and paths that
    /// differ only in case still refused, first claim or later ones alike.
    @Test func theCaseCheckSurvivesPathsWhoseHashesCollide() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("case-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try OutputTree(staging: dir)
        tree.foldHash = { _ in 7 }
        for p in ["a/One.html", "a/two.html", "b/Three.html", "b/four.html"] {
            try tree.write(p, to: p, owner: "u-\(p)")
        }
        for p in ["a/one.html", "A/Two.html", "b/THREE.html", "b/Four.html"] {
            #expect(throws: DossierError.self) { try tree.write(p, to: p, owner: "v-\(p)") }
        }
        try tree.write("c/five.html", to: "c/five.html", owner: "w")
        #expect(tree.contains("c/five.html") && !tree.contains("a/one.html"))
    }

    @Test func unsafeSchemesAreFoundAsABrowserReadsThem() {
        #expect(
            LinkChecker.unsafe([
                "javascript:x", " JaVa\tScRiPt:x", "vbscript:x", "file:///etc", "a/b.html", "https://x", "x:y/z",
                "data:text/html,x"
            ])
                == ["javascript:x", " JaVa\tScRiPt:x", "vbscript:x", "file:///etc", "data:text/html,x"])
    }
}
