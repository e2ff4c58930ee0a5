import Crypto
import Foundation
import Testing
@testable import DossierKit

/// The compact forms the pipeline holds per output file and per unit instead of the
/// texts and URLs it held before (docs/incremental.md, "Round seven: memory"), each
/// against the form it replaces.
@Suite struct BuildMemoryTests {
    // MARK: Digests

    /// The lower-case hex of `bytes`, the way the manifest wrote digests before.
    static func reference(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func aDigestIsItsBytesAndRendersTheirHex() {
        var rng = SystemRandomNumberGenerator()
        var samples: [[UInt8]] = [[UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xFF, count: 32), Array(0..<32)]
        for _ in 0..<200 { samples.append((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }) }
        for bytes in samples {
            let hex = Self.reference(bytes)
            let made = bytes.withUnsafeBytes { HexDigest(bytes: $0) }
            #expect(made.hex == hex)
            #expect(HexDigest(hex) == made && HexDigest(hex).hex == hex)
            #expect(HexDigest(hex).hashValue == made.hashValue)
        }
        let data = Data("the same bytes".utf8)
        #expect(data.withUnsafeBytes { HexDigest(sha256: $0) }.hex == Hashing.sha256(data))
        var hasher = SHA256()
        hasher.update(data: data)
        #expect(HexDigest(hasher).hex == Hashing.sha256(data))
    }

    /// Texts that are not 64 lower-case hex digits are kept as they are: equal exactly
    /// when the texts are, as when digests were strings.
    @Test func anyOtherTextIsKeptAsItIs() {
        let lower = String(repeating: "ab", count: 32)
        let texts = ["", "ab", "0f", lower.uppercased(), String(lower.dropLast()), lower + "0",
                     String(repeating: "g", count: 64), "A" + lower.dropFirst(), "é" + lower.dropFirst(2)]
        for t in texts {
            #expect(HexDigest(t).hex == t)
            #expect(HexDigest(t) != HexDigest(lower), "\(t)")
            #expect(HexDigest(t) == HexDigest(t))
        }
        #expect(HexDigest(lower).hex == lower)
    }

    /// A manifest entry's JSON and its state's bytes are those of the text it holds.
    @Test func manifestEntriesCodeTheirDigestAsText() throws {
        struct Old: Codable { var path: String; var sha256: String; var size: Int64 }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        for sha in [String(repeating: "0123456789abcdef", count: 4), "ABC", ""] {
            let entry = ManifestFile(path: "a/b.html", sha256: sha, size: 7)
            #expect(try enc.encode(entry) == (try enc.encode(Old(path: "a/b.html", sha256: sha, size: 7))))
            #expect(try JSONDecoder().decode(ManifestFile.self, from: enc.encode(entry)) == entry)
            #expect(entry.sha256 == sha)
        }
        var e = ManifestFile(path: "x", sha256: "ab", size: 1)
        e.sha256 = String(repeating: "cd", count: 32)
        #expect(
            e.digest == HexDigest(String(repeating: "cd", count: 32)) && e.sha256 == String(repeating: "cd", count: 32))
    }

    // MARK: The output tree's one table

    @Test func theTreeKeepsOneTableOfClaims() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("claims-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try OutputTree(staging: dir)
        let a = try tree.write("alpha", to: "a/x.html", owner: "unit-a")
        #expect(a.sha256 == Hashing.sha256(Data("alpha".utf8)) && a.size == 5)
        // A second claim names both owners; one differing only in case names the first.
        #expect { try tree.write("beta", to: "a/x.html", owner: "unit-b") } throws: { error in
            "\(error)".contains("unit-a") && "\(error)".contains("unit-b")
        }
        #expect { try tree.write("beta", to: "A/X.html", owner: "unit-b") } throws: { error in
            "\(error)".contains("'a/x.html' (unit-a)")
        }
        // A stream's path is claimed when it opens and a file only when it is finished.
        let stream = try tree.openStream("b/table.csv", owner: "unit-s")
        #expect(!tree.contains("b/table.csv") && tree.paths == ["a/x.html"])
        #expect(throws: DossierError.self) { try tree.write("x", to: "b/table.csv", owner: "unit-t") }
        try stream.append(Data("1,2\n".utf8))
        let s = try tree.finishStream(stream)
        #expect(tree.contains("b/table.csv") && tree.paths == ["a/x.html", "b/table.csv"])
        #expect(s.sha256 == Hashing.sha256(Data("1,2\n".utf8)) && s.size == 4)
    }

    /// The site's files are the units' file lists and the files outside units (assets,
    /// static files, the sitemap): the manifest lists every file of the folder, with its
    /// bytes' digest, after a clean build and after a patch.
    @Test func theManifestListsEveryFileOfUnitsAndOutsideThem() async throws {
        var files = TestProject.basic
        files["static/files/x.pdf"] = "%PDF"
        files["static/robots.txt"] = "User-agent: *\n"
        let p = try TestProject(files: files)
        defer { p.remove() }
        func check() throws {
            let tree = p.tree()
            let manifest = try SiteManifest.load(p.root.appendingPathComponent("_site.manifest.json"))
            #expect(manifest.files.map(\.path) == tree.keys.sorted())
            for f in manifest.files {
                #expect(f.sha256 == Hashing.sha256(tree[f.path]!) && f.size == Int64(tree[f.path]!.count))
            }
            #expect(
                tree["files/x.pdf"] != nil && tree["sitemap.xml"] != nil
                    && tree.keys.contains { $0.hasPrefix("assets/") })
        }
        try await p.build(clean: true)
        try check()
        try p.write("content/notes/n.md", "---\ntitle: N\n---\nN.\n")
        try p.write("static/robots.txt", "User-agent: x\n")
        try await p.build()
        try check()
    }

    /// A path the tree keeps is the same text in storage of its own size.
    @Test func keptPathsAreTheSameTextInStorageOfTheirSize() {
        var grown = "recall/participants/S001/"
        grown += "participant.json"
        for path in [grown, "a.html", "recall/é/ü \u{1F600}.csv", String(repeating: "x/", count: 300) + "y"] {
            let kept = OutputTree.compact(path)
            #expect(kept == path && kept.utf8.elementsEqual(path.utf8))
        }
        // (Swift's own capacity is not public: a copy that still shares storage would keep it.)
        var original = grown
        let kept = OutputTree.compact(original)
        original.withUTF8 { a in
            kept.utf8.withContiguousStorageIfAvailable { b in #expect(a.baseAddress != b.baseAddress) }
        }
    }

    // MARK: Units and links

    @Test func aUnitsInputsArePathsGivenBackAsURLs() {
        let urls = [URL(filePath: "/x/data/logs/S 1.jsonl"), URL(filePath: "/x/data/strings.txt")]
        let unit = SectionUnit(id: "p-S1", inputs: urls)
        #expect(unit.inputPaths == urls.map(\.path) && unit.inputs == urls)
        for path in ["/x/a.jsonl", "/x/a b%20c.jsonl", "/x/é/ü.csv", "/x//a.csv", "a.csv", "/x/a/", "/"] {
            #expect(
                BuildContext.lastPathComponent(path)
                    == URL(filePath: path, directoryHint: .notDirectory).lastPathComponent, "\(path)")
        }
    }

    @Test func equalLinkListsShareOneStorage() throws {
        let p = try TestProject(files: ["dossier.yml": "title: T\n"])
        defer { p.remove() }
        let ctx = BuildContext(project: try Project.load(p.root), options: BuildOptions(), log: BuildLog())
        let page = ["../../../index.html", "../../../assets/dossier.css", "raw.csv", "report.md"]
        let first = ctx.interned(page.map { String($0) })
        let second = ctx.interned(page.map { String($0) })
        let other = ctx.interned(["../../../index.html", "other.csv"])
        #expect(first == page && second == page && other == ["../../../index.html", "other.csv"])
        #expect(first.withUnsafeBufferPointer { $0.baseAddress } == second.withUnsafeBufferPointer { $0.baseAddress })
        #expect(first.withUnsafeBufferPointer { $0.baseAddress } != other.withUnsafeBufferPointer { $0.baseAddress })
    }

    /// Lists with texts repeated in a row (which take the text before them) and elsewhere
    /// come back equal to what was given, in order, on generated lists.
    @Test func listsWithRepeatedLinksComeBackAsGiven() throws {
        let p = try TestProject(files: ["dossier.yml": "title: T\n"])
        defer { p.remove() }
        let ctx = BuildContext(project: try Project.load(p.root), options: BuildOptions(), log: BuildLog())
        let texts = ["../../index.html", "../../assets/dossier.css", "a.csv", "../p00103/index.html", "x",
                     "https://example.org/a-long-address"]
        var random = SeededNumbers(state: 5)
        for _ in 0..<2_000 {
            var list: [String] = []
            for _ in 0..<(random.next() % 10) {
                let text = texts[random.next() % texts.count]
                for _ in 0...(random.next() % 3) { list.append(String(text.utf8.map { Character(.init($0)) })) }
            }
            #expect(ctx.interned(list) == list, "\(list)")
        }
    }

    /// Canonically equivalent links that are different bytes (different file names on
    /// disk) each come back as their own bytes: `==` holds them equal, sharing must not.
    @Test func equivalentButDifferentLinksKeepTheirOwnBytes() throws {
        let p = try TestProject(files: ["dossier.yml": "title: T\n"])
        defer { p.remove() }
        let ctx = BuildContext(project: try Project.load(p.root), options: BuildOptions(), log: BuildLog())
        let composed = "../notes/caf\u{E9}-menu-of-the-day.html"
        let decomposed = "../notes/cafe\u{301}-menu-of-the-day.html"
        #expect(composed == decomposed)   // why bytes must be compared
        let bytes = { (list: [String]) in list.map { Array($0.utf8) } }
        for lists in [[[composed], [decomposed]], [[decomposed, "x"], [composed, "x"]],
                      [["a-long-enough-link.html", composed, decomposed]]] {
            for list in lists { #expect(bytes(ctx.interned(list)) == bytes(list), "\(list)") }
        }
    }

    /// A digest's hex written from its bytes against the generic walk, and a cache key's
    /// parts hashed from the String's bytes against a SHA-256 of their length-prefixed
    /// `Data` (the form the key had), on generated texts.
    @Test func keysAndHexFromBytesAgreeWithTheDataForms() {
        var random = SeededNumbers(state: 21)
        for _ in 0..<500 {
            let pieces = ["a", "é", "\u{0}", "content/x.md", "🙂"]
            let parts = (0..<(random.next() % 5)).map { _ in random.soup(pieces, fewerThan: 9) }
            var key = Hashing.Key(), plain = SHA256()
            for p in parts {
                key.add(p)
                var n = UInt64(p.utf8.count).littleEndian
                withUnsafeBytes(of: &n) { plain.update(bufferPointer: $0) }
                plain.update(data: Data(p.utf8))
            }
            let digest = plain.finalize()
            #expect(key.finalize() == Hashing.hex(Array(digest)), "\(parts)")
            #expect(Hashing.hex(digest) == digest.map { String(format: "%02x", $0) }.joined())
        }
    }
}
