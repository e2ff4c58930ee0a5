@testable import DossierKit
import Foundation
import Testing

/// The page build's short cuts around content pages — paths kept as text instead of URLs,
/// results moved out of their slots instead of copied, a case fold without a new string,
/// the build's tables left for the process's exit to free — each against the plain code
/// it skips, on generated input.
@Suite struct ContentLoadingFastPathTests {
    static let folders = ["/work/site/content", "/work/site", "/work/other/content", "/work/site/a b/content",
                          "/work/site/./content", "/work/site/", "/w", "/work/sitex/content", "/wörk/content"]
    static let pieces = ["a", "b.md", "/", ".", "..", " ", "%41", "é", "e\u{301}", "-", "index.md", "x_y", "#", "?"]

    /// `plainSourcePath` (the folder's path, `/`, the name) against the path of the URL
    /// loading made before (`folder.appending(path:)`), and the URL made from the text
    /// when a message asks for the page's `source` against the same path.
    @Test func plainSourcePathAgreesWithTheURLPath() {
        var random = SeededNumbers(state: 7)
        var compared = 0, refused = 0
        for _ in 0..<6_000 {
            let folderPath = Self.folders[random.next() % Self.folders.count]
            let rel = random.soup(Self.pieces, fewerThan: 7)
            let folder = URL(fileURLWithPath: folderPath, isDirectory: true)
            guard let fast = ContentPage.plainSourcePath(folderPath: folder.path, relative: rel) else {
                refused += 1
                continue
            }
            let url = folder.appending(path: rel, directoryHint: .notDirectory)
            #expect(fast == url.path, "\(folderPath) + \(rel.debugDescription)")
            #expect(URL(filePath: fast, directoryHint: .notDirectory).path == fast, "\(fast.debugDescription)")
            compared += 1
        }
        #expect(compared > 1_000 && refused > 1_000)
    }

    /// A content page's input path from its path as text (`BuildContext.inputPath(_:root:)`
    /// of a `String`) against the same of its URL, for paths with `.`, `..`, `//`, spaces,
    /// `%` and non-ASCII names, inside and outside the project's folder.
    @Test func inputPathFromTextAgreesWithTheURL() {
        var random = SeededNumbers(state: 19)
        let roots = ["/work/site", "/work", "/wörk", "/work/site/a b"]
        for _ in 0..<4_000 {
            let path = Self.folders[random.next() % Self.folders.count] + "/" + random.soup(Self.pieces, fewerThan: 7)
            let root = roots[random.next() % roots.count]
            let url = URL(filePath: path, directoryHint: .notDirectory)
            #expect(BuildContext.inputPath(url.path, root: root) == BuildContext.inputPath(url, root: root),
                    "\(path.debugDescription) under \(root)")
        }
    }

    /// Pages loaded from a folder of awkward names keep the path the URL arithmetic gives,
    /// whichever way each was loaded: `sourcePath` and the `source` made from it.
    @Test func loadedPagesKeepTheURLPath() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let names = ["a.md", "b c.md", "sub/d.md", "é/f.md", "ü-ö.md", "x/y/index.md", "e\u{301}.md", "m.markdown"]
        for name in names {
            let url = dir.appending(path: name, directoryHint: .notDirectory)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data("# \(name)\n\ntext\n".utf8).write(to: url)
        }
        let pages = try ContentPage.loadAll(in: dir, includeDrafts: false)
        #expect(pages.count == names.count)
        for p in pages {
            let expected = dir.appending(path: p.relative, directoryHint: .notDirectory).path
            #expect(p.sourcePath == expected)
            #expect(p.source.path == expected)
        }
    }

    /// `OutputTree.caseFolded` (no new string for an all-ASCII path without capitals)
    /// against `lowercased()`, on paths of capitals, ASCII, non-ASCII letters whose lower
    /// case differs (`É`, `İ`, `Σ`), bytes next to the capitals' range (`@`, `[`).
    @Test func caseFoldedAgreesWithLowercased() {
        var random = SeededNumbers(state: 29)
        let pieces = ["a", "Z", "A", "z", "/", "index.html", "@", "[", "`", "{", "É", "é", "İ", "Σ", "ß", "-", "0"]
        var same = 0
        for _ in 0..<6_000 {
            let path = random.soup(pieces, fewerThan: 9)
            let folded = OutputTree.caseFolded(path)
            #expect(folded == path.lowercased(), "\(path.debugDescription)")
            if folded.utf8.elementsEqual(path.utf8) { same += 1 }
        }
        #expect(same > 100)
    }

    /// A content file's digest taken as words and written as hex (`HexDigest(sha256:)`,
    /// `hex`) against the hex text `Hashing.sha256` gives and the words parsed from it,
    /// for files of 0 to 300 bytes.
    @Test func digestWordsAndHexAgreeWithTheHexText() {
        var random = SeededNumbers(state: 31)
        for count in 0..<300 {
            let data = Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            let digest = data.withUnsafeBytes { HexDigest(sha256: $0) }
            #expect(digest.hex == Hashing.sha256(data))
            #expect(digest == HexDigest(Hashing.sha256(data)))
        }
    }

    /// A build that leaves its tables for the exit to free (`dossier build`) writes the
    /// same site, manifest and report as one that frees them (the preview server, tests).
    @Test func buildLeavingMemoryToExitWritesTheSameSite() async throws {
        var files = TestProject.basic
        for k in 0..<40 { files["content/p\(k).md"] = "# P \(k)\n\n[next](p\((k + 1) % 40).md) [home](../)\n" }
        let plain = try TestProject(files: files), leaving = try TestProject(files: files)
        defer { plain.remove(); leaving.remove() }
        let log = BuildLog(level: .quiet, sink: { _ in })
        var options = BuildOptions(clean: true)
        let a = try await Builder(project: plain.root, options: options, log: log).build()
        options.leaveMemoryToExit = true
        let b = try await Builder(project: leaving.root, options: options, log: log).build()
        #expect(plain.tree().count > 40)
        #expect(plain.tree() == leaving.tree())
        #expect(plain.read("_site.manifest.json") == leaving.read("_site.manifest.json"))
        #expect((a.pagesRendered, a.files, a.warnings.count) == (b.pagesRendered, b.files, b.warnings.count))
    }

    final class Counted: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    /// `parallelMap` and `concurrentMap` move each result out of its slot: each comes back
    /// as the plain `map` gives it, held by the result array alone (a copy left in a slot,
    /// or a slot released twice, would show here), and is freed with the array.
    @Test func mapsMoveTheirResultsOut() async throws {
        for count in [0, 1, 2, 7, 100] {
            let items = Array(0..<count)
            var weak: [() -> Counted?] = []
            do {
                var parallel = parallelMap(items) { Counted($0 * 3) }
                var concurrent = try await concurrentMap(items) { Counted($0 * 3) }
                #expect(parallel.map(\.value) == items.map { $0 * 3 })
                #expect(concurrent.map(\.value) == items.map { $0 * 3 })
                for k in items.indices {
                    #expect(isKnownUniquelyReferenced(&parallel[k]))
                    #expect(isKnownUniquelyReferenced(&concurrent[k]))
                    weak.append { [weak a = parallel[k]] in a }
                    weak.append { [weak a = concurrent[k]] in a }
                }
            }
            #expect(weak.allSatisfy { $0() == nil })
        }
    }
}
