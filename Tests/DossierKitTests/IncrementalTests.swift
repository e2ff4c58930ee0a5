import Foundation
import Testing
@testable import DossierKit

/// Incremental builds patch the live site (OutputTree patch mode) and trust input
/// stamps (BuildState.InputStamp); both must give exactly what a clean build gives.
@Suite struct IncrementalTests {
    func inode(_ p: TestProject, _ path: String) -> UInt64? {
        var st = stat()
        return stat(p.root.appendingPathComponent("_site/" + path).path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    @Test func unchangedFilesAreNotTouchedRemovedPagesDisappearAndTheResultEqualsACleanBuild() async throws {
        let p = try TestProject(
            files: TestProject.basic.merging(["content/notes/c.md": "---\ntitle: C\n---\nC.\n"]) { a, _ in a })
        defer { p.remove() }
        try await p.build()
        let aInode = inode(p, "a/index.html")
        let cssInode = inode(p, "assets/dossier.css")
        #expect(aInode != nil)
        // Change b, remove notes/c (and so its folder); the index lists pages, so it changes too.
        try p.write("content/b.md", "---\ntitle: Page B\n---\nNew text of B.\n")
        try FileManager.default.removeItem(at: p.root.appendingPathComponent("content/notes"))
        try await p.build()
        #expect(inode(p, "a/index.html") == aInode, "an unchanged page was rewritten")
        #expect(inode(p, "assets/dossier.css") == cssInode, "an unchanged asset was rewritten")
        #expect(!FileManager.default.fileExists(atPath: p.root.appendingPathComponent("_site/notes").path))
        let incremental = p.tree()
        #expect(String(decoding: incremental["b/index.html"]!, as: UTF8.self).contains("New text of B."))
        let manifest = try SiteManifest.load(p.root.appendingPathComponent("_site.manifest.json"))
        #expect(Set(manifest.files.map(\.path)) == Set(incremental.keys))
        try await p.build(clean: true)
        #expect(p.tree() == incremental)
    }

    @Test func aPageBecomingAFolderAndBackIsPatched() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build()
        // static/x is a file in the site; then x/ becomes a folder holding a page.
        try p.write("static/x", "plain file")
        try await p.build()
        #expect(p.tree()["x"] != nil)
        try FileManager.default.removeItem(at: p.root.appendingPathComponent("static"))
        try p.write("content/x.md", "---\ntitle: X\n---\nNow a page.\n")
        try await p.build()
        let t = p.tree()
        #expect(t["x"] == nil)
        #expect(t["x/index.html"] != nil)
        try await p.build(clean: true)
        #expect(p.tree() == t)
    }

    @Test func anInterruptedPatchLeavesNoStateSoTheNextBuildIsFull() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build()
        let state = p.root.appendingPathComponent(".dossier/state-_site.bin")
        #expect(FileManager.default.fileExists(atPath: state.path))
        // A state that does not decode (as after a crash mid-write) means a full build.
        try Data("DOSSIER-STATE\ngarbage".utf8).write(to: state)
        let report = try await p.build()
        #expect(report.pagesReused == 0)
        #expect(report.pagesRendered == 5)             // the four pages and 404.html
    }

    @Test func stateRoundTripsThroughItsBinaryForm() throws {
        var s = BuildState(dossier: "0.1.0", output: "/x/_site", units: [:])
        s.units["recall/S1"] = .init(hash: "h", files: [ManifestFile(path: "a/é.html", sha256: "0f", size: 12)],
                                     links: ["a/é.html": ["../b/", "x.css"]], record: .inMemory(Data([0, 1, 2])),
            warnings: [Diagnostic(.warning, file: "data/l.jsonl", line: 3, "odd"), Diagnostic("no place")],
                                     pages: 1, blurb: nil)
        s.units["#home"] = .init(hash: "k", files: [], links: [:], record: nil, warnings: [], pages: 1, blurb: "b")
        s.site = [ManifestFile(path: "index.html", sha256: "ab", size: 1 << 33)]
        s.inputs["/x/data/l.jsonl"] = .init(
            size: 5, mtime: -1, ctime: 2, inode: .max, device: 7, takenAt: 9, sha256: "cd")
        let data = try s.encoded()
        let back = try #require(BuildState.decode(data))
        #expect(try back.encoded() == data)
        #expect(back.units["recall/S1"]?.warnings == s.units["recall/S1"]?.warnings)
        #expect(try back.units["recall/S1"]?.record?.data() == Data([0, 1, 2]))
        #expect(back.units["#home"]?.blurb == "b")
        #expect(back.inputs == s.inputs)
        // Every truncation is refused, never misread.
        for cut in stride(from: 0, to: data.count, by: 7) { #expect(BuildState.decode(data.prefix(cut)) == nil) }
    }

    /// `save` writes the state in pieces; whatever the piece size, they add up to the
    /// whole encoding, and the saved file is that encoding.
    @Test func theStateWrittenInPiecesIsTheWholeEncoding() throws {
        var s = BuildState(dossier: "0.1.0", output: "/x/_site", units: [:])
        for i in 0..<50 {
            s.units["recall/p-S\(i)"] = .init(
                hash: "h\(i)",
                files: [ManifestFile(path: "recall/participants/S\(i)/raw.csv", sha256: "0f", size: Int64(i))],
                links: ["p\(i).html": ["../b/"]], record: .inMemory(Data(repeating: UInt8(i), count: i * 37)),
                warnings: [], pages: 1, blurb: nil, blobSize: i % 2 == 0 ? Int64(i) : nil)
            s.site.append(ManifestFile(path: "f\(i)", sha256: "ab", size: Int64(i)))
            s.inputs["/x/data/S\(i).jsonl"] = .init(
                size: 5, mtime: -1, ctime: 2, inode: 3, device: 7, takenAt: 9, sha256: "cd")
        }
        let whole = try s.encoded()
        #expect(BuildState.decode(whole) != nil)
        for size in [1, 64, 1000, 1 << 20] {
            var pieces: [[UInt8]] = []
            try s.encode(pieceSize: size) { pieces.append($0) }
            #expect(Data(pieces.joined()) == whole, "piece size \(size)")
            if size == 64 { #expect(pieces.count > 50) }
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("state.bin")
        try s.save(url)
        #expect(FileManager.default.contents(atPath: url.path) == whole)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["state.bin"])   // no temp file left
    }

    /// Records of units built in a build wait in the spill file (``RecordSpill``): read
    /// back, from several threads at once, and in the state, they are the bytes kept.
    @Test func spilledRecordsAreTheRecordsKept() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let spill = try RecordSpill(in: dir)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)   // unlinked at once
        let records = (0..<300).map { i in Data((0..<(i * 13 % 700)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }) }
        let stored = parallelMap(Array(records.indices)) { i in try! spill.keep(records[i]) }
        let back = parallelMap(stored) { try! $0.data() }
        #expect(back == records)
        var inMemory = BuildState(dossier: "0.1.0", output: "/x/_site", units: [:]), spilled = inMemory
        for i in records.indices {
            let u = BuildState.Unit(
                hash: "h\(i)", files: [], links: [:], record: .inMemory(records[i]), warnings: [], pages: 1, blurb: nil)
            inMemory.units["recall/p-\(i)"] = u
            var s = u
            s.record = stored[i]
            spilled.units["recall/p-\(i)"] = s
        }
        #expect(try spilled.encoded() == inMemory.encoded())
        let unit = UnitRecord(id: "p-1", stored: stored[1], folder: nil, name: nil)
        #expect(try unit.data == records[1])
    }

    @Test func stampsAreTrustedOnlyWhenNothingAboutTheFileChanged() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("in.txt").path
        try Data("12345".utf8).write(to: URL(fileURLWithPath: f))
        // Backdate the file so it is not "racily clean".
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, f, &times, 0) == 0)
        var old = try #require(BuildState.InputStamp.current(f))
        // ctime was just set by utimensat: a stamp taken in the same second is not trusted.
        #expect(!old.stillValid(try #require(BuildState.InputStamp.current(f))))
        old.takenAt += 2_000_000_000
        #expect(old.stillValid(try #require(BuildState.InputStamp.current(f))))
        // Any field that differs means "read it again".
        let same = try #require(BuildState.InputStamp.current(f))
        var changed = [same, same, same, same, same]
        changed[0].size += 1; changed[1].mtime += 1; changed[2].ctime += 1; changed[3].inode += 1;
        changed[4].device += 1
        for c in changed { #expect(!old.stillValid(c)) }
        // Rewriting the file (same size, mtime put back) moves its ctime on.
        try Data("54321".utf8).write(to: URL(fileURLWithPath: f))
        #expect(utimensat(AT_FDCWD, f, &times, 0) == 0)
        let now = try #require(BuildState.InputStamp.current(f))
        #expect(now.size == same.size && now.mtime == same.mtime)
        #expect(now.ctime >= same.ctime)
    }
}

@Suite struct IncrementalLinkCheckTests {
    @Test func anUnchangedPageLinkingAFileThatIsRemovedFailsTheBuild() async throws {
        var files = TestProject.basic
        files["static/files/x.pdf"] = "%PDF"
        files["content/a.md"] = "---\ntitle: Page A\n---\nSee [the file](../files/x.pdf).\n"
        let p = try TestProject(files: files)
        defer { p.remove() }
        try await p.build()
        // Adding a page elsewhere keeps the check short, and the build passes.
        try p.write("content/notes/n.md", "---\ntitle: N\n---\nN.\n")
        try await p.build()
        // a.md is unchanged, but the file it links to goes: the full check runs and fails.
        try FileManager.default.removeItem(at: p.root.appendingPathComponent("static/files/x.pdf"))
        let before = p.tree()
        do {
            try await p.build()
            Issue.record("the build should fail on the dangling link")
        } catch let e as DossierError {
            #expect(
                e.diagnostics.contains {
                    $0.message.contains("dangling link '../files/x.pdf'") && $0.file?.hasSuffix("content/a.md") == true
                })
        }
        #expect(p.tree() == before)
    }
}

@Suite struct IncrementalRepairTests {
    @Test func aSiteFileDeletedByHandComesBackOnTheNextBuild() async throws {
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        try await p.build()
        let full = p.tree()
        for gone in ["assets/dossier.css", "a/index.html", "sitemap.xml"] {
            try FileManager.default.removeItem(at: p.root.appendingPathComponent("_site/" + gone))
        }
        try await p.build()
        #expect(p.tree() == full)
    }
}
