// The zip reader and writer on their own: round trips (plain and ZIP64), and hostile
// archives the reader must refuse with a message naming what is wrong. Python's
// `zipfile` and `bagit` check the same bytes from outside (Tests/e2e/test_zip_oracle.py).
import Foundation
import Testing
@testable import ZipArchive

@Suite struct ZipArchiveTests {
    func temp() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)")
    }

    /// Entries of every kind the writer decides between: empty, incompressible (stored),
    /// compressible (deflate), non-ASCII names.
    static let noise: [UInt8] = {
        var g = SystemRandomNumberGenerator()
        return (0..<5000).map { _ in UInt8.random(in: 0...255, using: &g) }
    }()

    func sample() -> [(String, [UInt8])] {
        let noise = Self.noise
        return [("b/empty.txt", []), ("b/noise.bin", noise),
                ("b/text.txt", Array(String(repeating: "all work and no play ", count: 400).utf8)),
                ("b/ünïcode/名前.md", Array("# hi\n".utf8))]
    }

    func written(_ entries: [(String, [UInt8])], zip64: Bool = false) throws -> [UInt8] {
        let url = temp()
        defer { try? FileManager.default.removeItem(at: url) }
        let w = try ZipWriter(path: url.path, day: "2026-11-29")
        w.zip64Always = zip64
        for (n, c) in entries { try w.add(name: n, contents: c) }
        try w.finish()
        return [UInt8](try Data(contentsOf: url))
    }

    @Test func writtenEntriesReadBackTheSame() throws {
        for zip64 in [false, true] {
            let bytes = try written(sample(), zip64: zip64)
            let r = try ZipReader(bytes)
            #expect(r.entries.map(\.name) == sample().map(\.0))
            for (n, c) in sample() { #expect(try r.contents(of: r[n]!) == c, "\(n) zip64 \(zip64)") }
            #expect(r["b/noise.bin"]!.method == 0)
            #expect(r["b/text.txt"]!.method == 8)
            #expect(r["b/empty.txt"]!.method == 0)
        }
    }

    @Test func theSameEntriesGiveTheSameBytes() throws {
        let s = sample()
        #expect(try written(s) == written(s))
    }

    @Test func theDateIsTheDayGiven() {
        #expect(dosDate("2026-11-29") == UInt16((2026 - 1980) << 9 | 11 << 5 | 29))
        #expect(dosDate("1970-01-01") == 0x21)
        #expect(dosDate("junk") == 0x21)
    }

    func refused(_ bytes: [UInt8], _ words: String, limits: ZipReader.Limits = ZipReader.Limits(),
                 sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let r = try ZipReader(bytes, limits: limits)
            for e in r.entries { _ = try r.contents(of: e) }
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch let e as ZipError {
            #expect(e.description.contains(words), "\(e.description)", sourceLocation: sourceLocation)
        } catch { Issue.record("\(error)", sourceLocation: sourceLocation) }
    }

    /// Replaces every occurrence of `name` (same length) in the archive.
    func renamed(_ bytes: [UInt8], _ from: String, _ to: String) -> [UInt8] {
        let a = Array(from.utf8), b = Array(to.utf8)
        precondition(a.count == b.count)
        var out = bytes
        var i = 0
        while i + a.count <= out.count {
            if Array(out[i..<(i + a.count)]) == a { out.replaceSubrange(i..<(i + a.count), with: b) }
            i += 1
        }
        return out
    }

    @Test func namesThatLeaveTheFolderAreRefused() throws {
        let bytes = try written([("aaaaaa/x.txt", Array("x".utf8))])
        for bad in ["../../ax.txt", "/aaaaa/x.txt", "aa\\aaa/x.txt", "aaa/../x.txt", "C:aaaa/x.txt", "aaaaa//x.txt"] {
            refused(renamed(bytes, "aaaaaa/x.txt", bad), "leaves the folder")
        }
        #expect(ZipReader.isSafe("a/b/c.txt") && ZipReader.isSafe("a/b/"))
        #expect(!ZipReader.isSafe("") && !ZipReader.isSafe("./a") && !ZipReader.isSafe("a/./b"))
    }

    @Test func aDamagedEntryFailsItsCRC() throws {
        let noise = Array(Self.noise.prefix(64))
        var bytes = try written([("noise.bin", noise)])   // random bytes: stored (deflate is not smaller)
        #expect(try ZipReader(bytes)["noise.bin"]!.method == 0)
        bytes[30 + "noise.bin".utf8.count + 10] ^= 0x01
        refused(bytes, "CRC-32 does not match")
    }

    @Test func cutShortOrNotAZipIsRefused() throws {
        let bytes = try written(sample())
        refused(Array(bytes.dropLast(5)), "not a zip")
        refused(Array(bytes.dropFirst(100)), "out of place")
        refused(Array("hello".utf8), "not a zip")
        refused([], "not a zip")
    }

    @Test func sizesOverTheLimitsAreRefused() throws {
        let bytes = try written(sample())
        var small = ZipReader.Limits()
        small.entrySize = 1000
        refused(bytes, "over the limit of 1000", limits: small)
        var total = ZipReader.Limits()
        total.totalSize = 9000
        refused(bytes, "unpack to more than 9000", limits: total)
        var few = ZipReader.Limits()
        few.entries = 2
        refused(bytes, "more than 2 entries", limits: few)
    }

    /// The size in the central directory raised: the ratio check (or the inflater's
    /// stop at the stated size) refuses it.
    @Test func aLyingSizeIsRefused() throws {
        let text = Array(String(repeating: "a", count: 10_000).utf8)
        let bytes = try written([("a.txt", text)])
        let r = try ZipReader(bytes)
        let e = r["a.txt"]!
        #expect(e.method == 8)
        var lying = bytes
        let central = (0..<(bytes.count - 4)).last { i in bytes[i..<(i + 4)].elementsEqual([0x50, 0x4B, 1, 2]) }!
        for (k, b) in [UInt8(0x00), 0x00, 0x00, 0x7F].enumerated() { lying[central + 24 + k] = b }
        refused(lying, "a zip bomb")
        var slightly = bytes
        slightly[central + 24] = UInt8(truncatingIfNeeded: 10_001)
        slightly[central + 25] = UInt8(truncatingIfNeeded: 10_001 >> 8)
        refused(slightly, "inflates to 10000 bytes, not its stated 10001")
    }

    /// Two central entries pointing at the same local entry (the overlapping-entry bomb).
    @Test func overlappingEntriesAreRefused() throws {
        let bytes = try written([("a.txt", Array("one".utf8)), ("b.txt", Array("two".utf8))])
        var out = bytes
        let centrals = (0..<(bytes.count - 4)).filter { i in bytes[i..<(i + 4)].elementsEqual([0x50, 0x4B, 1, 2]) }
        // b's local header offset := a's (0).
        for k in 0..<4 { out[centrals[1] + 42 + k] = 0 }
        refused(out, "overlaps another entry")
    }

    @Test func encryptionAndOtherMethodsAreRefused() throws {
        let bytes = try written([("a.txt", Array("one".utf8))])
        let central = (0..<(bytes.count - 4)).first { i in bytes[i..<(i + 4)].elementsEqual([0x50, 0x4B, 1, 2]) }!
        var encrypted = bytes
        encrypted[central + 8] |= 1
        refused(encrypted, "is encrypted")
        var bzip = bytes
        bzip[central + 10] = 12
        refused(bzip, "compression method 12")
    }

    @Test func unpackWritesEveryFileAndNeverOverwrites() throws {
        let r = try ZipReader(written(sample()))
        let dir = temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        try r.unpack(to: dir)
        for (n, c) in sample() { #expect([UInt8](try Data(contentsOf: dir.appendingPathComponent(n))) == c) }
        #expect(throws: ZipError.self) { try r.unpack(to: dir) }
    }
}
