import Foundation
import Testing
@testable import DossierKit

/// A streamed output file (``OutputFileStream``) is the concatenation of what was
/// appended, whatever the sizes of the pieces relative to its 128 KiB buffer (small
/// pieces buffered, a piece that would overflow the buffer flushing it first, pieces of
/// the buffer's size or more written directly), and its manifest entry is that file's.
@Suite struct OutputFileStreamTests {
    @Test func appendedPiecesOfEverySizeMakeTheFileAndItsHash() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try OutputTree(staging: dir)
        var random = SeededNumbers(state: 29)
        let sizes =
            [0, 1, 131_071, 131_072, 131_073, 70_000, 70_000, 300_000, 5]
            + (0..<60).map { _ in random.next() % 200_000 }
        let stream = try tree.openStream("t/big.csv", owner: "test")
        var expected: [UInt8] = []
        for (i, n) in sizes.enumerated() {
            let piece = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            try stream.append(piece)
            expected += piece
        }
        let entry = try tree.finishStream(stream)
        let written = try #require(FileManager.default.contents(atPath: dir.path + "/t/big.csv"))
        #expect(written == Data(expected))
        #expect(entry.size == Int64(expected.count))
        #expect(entry.sha256 == Hashing.sha256(Data(expected)))
    }

    /// The tree makes its files through a descriptor of the staging folder (``OutputTree``'s
    /// `openat`/`mkdirat`): files land at their paths, and the descriptor is closed when the
    /// tree goes — also the one each build of a project made (`dossier serve` builds again
    /// and again in one process).
    @Test func theStagingFolderIsOpenOnlyWhileItsTreeLives() async throws {
        func openDescriptors(under path: String) -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0))?
                    .hasPrefix(path) == true
            }.count
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("staging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let tree = try OutputTree(staging: dir)
            try tree.write(Data("a".utf8), to: "x/y/z.html", owner: "t")
            try tree.write(Data("b".utf8), to: "top.txt", owner: "t")
            #expect(FileManager.default.contents(atPath: dir.path + "/x/y/z.html") == Data("a".utf8))
            #expect(FileManager.default.contents(atPath: dir.path + "/top.txt") == Data("b".utf8))
            #expect(openDescriptors(under: dir.path) == 1)
        }
        #expect(openDescriptors(under: dir.path) == 0)
        let p = try TestProject(files: TestProject.basic)
        defer { p.remove() }
        for _ in 0..<3 { try await p.build(clean: true) }
        #expect(openDescriptors(under: p.root.path) == 0)
    }
}
