import Foundation
import Testing
import Crypto
@testable import DossierKit

// The scan's hash of a fetched file, read back from its temporary file 1 MiB at a time
// (docs/publish.md, "What a scan fetches"), against its straightforward twin: the SHA-256
// of the same bytes held in memory.

@Test(arguments: [0, 1, 1 << 20, (1 << 20) + 1, 5 * (1 << 20) / 2])
func aTemporaryFileHashesAsItsBytesDo(count: Int) throws {
    var rng = SystemRandomNumberGenerator()
    let bytes = (0..<count + 100).map { _ in UInt8.random(in: 0...255, using: &rng) }
    let fd = try RemoteFileDigest.temporaryFile()
    defer { close(fd) }
    var st = stat()
    #expect(fstat(fd, &st) == 0 && st.st_nlink == 0)                 // unlinked: gone once closed
    #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) } == bytes.count)
    // Only the first `count` bytes are the answer (the rest could be an earlier, longer one).
    let twin = FileHash.sha256(Data(bytes[..<count]))
    #expect(try RemoteFileDigest.sha256(fd, count: count) == twin)
}

@Test func theUnknownDigestIsNoFilesDigest() {
    #expect(RemoteFileDigest.unknown.count == 64 && RemoteFileDigest.unknown.allSatisfy { $0 == "0" })
    #expect(RemoteFileDigest.unknown != FileHash.sha256(Data()))
}
