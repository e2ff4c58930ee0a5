import Foundation
import Testing
@testable import DossierKit
import Render

private func e(_ path: String, _ fill: Character, _ size: Int64 = 10) -> SiteManifest.Entry {
    SiteManifest.Entry(path: path, sha256: String(repeating: fill, count: 64), size: size)
}

@Test func firstPublishUploadsEverythingAssetsFirstRootIndexLast() {
    let local = SiteManifest(files: [
        e("index.html", "a"), e("assets/site.css", "b"), e("recall/index.html", "c"), e("recall/p01.csv", "d")
    ])
    let plan = PublishPlan(local: local, remote: nil)
    #expect(plan.uploads.map(\.entry.path) == ["assets/site.css", "recall/p01.csv", "recall/index.html", "index.html"])
    #expect(plan.uploads.allSatisfy { $0.reason == .new })
    #expect(plan.deletes.isEmpty)
    #expect(plan.unchanged == 0)
    #expect(plan.collectionsToCreate == ["assets", "recall"])
}

@Test func onlyChangedNewAndRemovedFilesAreActedOn() {
    let remote = SiteManifest(files: [
        e("index.html", "a"), e("old/gone.html", "b"), e("old/deeper/x.png", "b"), e("same.css", "c"),
        e("size.txt", "d", 10)
    ])
    let local = SiteManifest(files: [
        e("index.html", "f"), e("same.css", "c"), e("size.txt", "d", 11), e("new/deep/page.html", "e")
    ])
    let plan = PublishPlan(local: local, remote: remote)
    #expect(plan.uploads.map(\.entry.path) == ["size.txt", "new/deep/page.html", "index.html"])
    #expect(plan.uploads.map(\.reason) == [.changed, .new, .changed])
    #expect(plan.deletes == ["old/deeper/x.png", "old/gone.html"])
    #expect(plan.unchanged == 1)
    #expect(plan.collectionsToCreate == ["new", "new/deep"])
    #expect(plan.collectionsToRemove == ["old/deeper", "old"])
}

@Test func identicalManifestsGiveAnEmptyPlan() {
    let m = SiteManifest(files: [e("a.html", "1"), e("b/c.html", "2")])
    let plan = PublishPlan(local: m, remote: m)
    #expect(plan.isEmpty)
    #expect(plan.unchanged == 2)
}

@Test func temporaryNamesStayInTheSameFolderAndAreHidden() {
    #expect(Publisher.temporaryPath(for: "index.html") == ".index.html.dossier-upload")
    #expect(Publisher.temporaryPath(for: "a/b/c.css") == "a/b/.c.css.dossier-upload")
    // A long name (here 250 bytes) gets a hashed temporary name of 32 bytes beside it.
    let long = String(repeating: "é", count: 122) + "x.html"     // 244 + 6 bytes
    #expect(long.utf8.count == 250)
    let temp = Publisher.temporaryPath(for: "a/" + long)
    #expect(temp.hasPrefix("a/.") && temp.hasSuffix(".dossier-upload") && temp.utf8.count == 2 + 32)
    #expect(temp != Publisher.temporaryPath(for: "a/" + long.dropFirst()))
}

@Test func manifestDecodingRejectsUnsafePaths() {
    for bad in ["../x", "/etc/passwd", "a//b", "a/./b", "a/"] {
        let json =
            // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
            #"{"dossier":"0.1.0","files":[{"path":"\#(bad)","sha256":"\#(String(repeating: "a", count: 64))","size":1}]}"#
            // END DATA TABLE
        #expect(throws: DossierError.self) { try SiteManifest.decode(Data(json.utf8), shown: "m.json") }
    }
    let dup =
        // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
        #"{"dossier":"0.1.0","files":[{"path":"a","sha256":"\#(String(repeating: "a", count: 64))","size":1},{"path":"a","sha256":"\#(String(repeating: "b", count: 64))","size":1}]}"#
        // END DATA TABLE
    #expect(throws: DossierError.self) { try SiteManifest.decode(Data(dup.utf8), shown: "m.json") }
    let short = #"{"dossier":"0.1.0","files":[{"path":"a","sha256":"abc","size":1}]}"#
    #expect(throws: DossierError.self) { try SiteManifest.decode(Data(short.utf8), shown: "m.json") }
}

@Test func manifestRoundTripsAndSortsByPath() throws {
    let m = SiteManifest(files: [e("b", "1"), e("a", "2")])
    let back = try SiteManifest.decode(try m.encoded(), shown: "x")
    #expect(back.files.map(\.path) == ["a", "b"])
    #expect(back == m)
}

@Test func buildManifestBytesEqualTheGenericEncoderAndDecodeBack() throws {
    let files = [
        SiteManifest.Entry(path: "b/ü \"q\".html", sha256: String(repeating: "ab", count: 32), size: 3),
        SiteManifest.Entry(path: "a\\/x\u{2028}.css", sha256: String(repeating: "0f", count: 32), size: 1 << 40)
    ]
    for m in [
        SiteManifest(files: files), SiteManifest(files: files, inputs: [files[0]]), SiteManifest(files: [], inputs: [])
    ] {
        #expect(m.outputJSON() == (try JSONOutput.encode(m)))
        #expect(try JSONDecoder().decode(SiteManifest.self, from: m.outputJSON()) == m)
    }
}

/// The build writes the manifest in pieces; whatever their size, they are the whole text.
@Test func theManifestWrittenInPiecesIsTheWholeText() throws {
    let files = (0..<300).map {
        SiteManifest.Entry(path: "p/\($0) \"é\".html", sha256: String(repeating: "ab", count: 32), size: Int64($0))
    }
    for m in [SiteManifest(files: files, inputs: Array(files.prefix(7))), SiteManifest(files: [], inputs: nil)] {
        let whole = try JSONOutput.encode(m)
        for size in [1, 100, 4096, 1 << 20] {
            var pieces: [[UInt8]] = []
            m.writeJSON(pieceSize: size) { pieces.append($0) }
            #expect(Data(pieces.joined()) == whole, "piece size \(size)")
            if size == 100 && !m.files.isEmpty { #expect(pieces.count > 300) }
        }
    }
}

/// The manifest gathered as bytes against the generic encoder, on generated manifests:
/// paths of plain ASCII, quotes, backslashes, controls, U+2028 and other non-ASCII text,
/// digests as bytes and as other text, sizes from 0 to the largest, in pieces of any size.
@Test func generatedManifestsWrittenAsBytesEqualTheGenericEncoder() throws {
    let pieces = ["a", "b/", "index.html", "\"", "\\", "\n", "\t", "\u{1}", "\u{7F}", "é", "\u{2028}", " ", "/"]
    var random = SeededNumbers(state: 31)
    for _ in 0..<150 {
        let entries = (0..<(random.next() % 12)).map { _ -> SiteManifest.Entry in
            let digest = random.next() % 5 == 0 ? "not-hex \"\(random.next())\""
                : String((0..<64).map { _ in Array("0123456789abcdef")[random.next() % 16] })
            let size: Int64 = [0, 1, 9, 10, 99, 1 << 40, Int64.max][random.next() % 7]
                + (random.next() % 2 == 0 ? 0 : -Int64(random.next() % 2))
            return SiteManifest.Entry(path: random.soup(pieces, fewerThan: 8), sha256: digest, size: max(0, size))
        }
        let m = random.next() % 3 == 0 ? SiteManifest(files: entries)
            : SiteManifest(files: entries, inputs: Array(entries.reversed().prefix(random.next() % 4)))
        let whole = try JSONOutput.encode(m)
        var pieces: [[UInt8]] = []
        m.writeJSON(pieceSize: [1, 50, 1 << 16][random.next() % 3]) { pieces.append($0) }
        #expect(Data(pieces.joined()) == whole, "\(m.files.map(\.path))")
    }
}
