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
}
