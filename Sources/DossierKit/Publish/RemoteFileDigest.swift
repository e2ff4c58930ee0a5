#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Crypto
import WebDAV

/// The SHA-256 of a file on the server, for the scan of `publish --verify` and of a
/// publish that did not finish (docs/publish.md, "What a scan fetches"). The file is
/// fetched into an unlinked temporary file and hashed from there 1 MiB at a time, so a
/// large file costs disk, not memory; and at most `limit` bytes of it are taken.
enum RemoteFileDigest {
    /// What is recorded for a file longer than the limit: 64 zeros. No file's SHA-256 is
    /// known to be this, so it never matches a local file and the file counts as changed.
    static let unknown = String(repeating: "0", count: 64)

    enum Outcome: Equatable {
        case missing
        case hashed(sha256: String, size: Int64, etag: String?)
        /// Longer than the limit: the transfer was stopped; the content is unknown.
        case longer(etag: String?)
    }

    /// Fetches and hashes `path`, taking at most `limit` (>= 1) bytes.
    static func fetch(_ client: WebDAVClient, _ path: String, limit: Int) async throws -> Outcome {
        let fd = try temporaryFile()
        defer { close(fd) }
        do {
            guard let (etag, count) = try await client.getIfExists(path, into: fd, maxBytes: max(limit, 1)) else {
                return .missing
            }
            return .hashed(sha256: try sha256(fd, count: count), size: Int64(count), etag: etag)
        } catch WebDAVError.answerTooLong {
            return .longer(etag: nil)
        }
    }

    /// A new file in the temporary folder (`TMPDIR`, else /tmp), already unlinked: it
    /// disappears when closed, also when the process is killed.
    static func temporaryFile() throws -> Int32 {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/dossier-scan-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw DossierError("\(folder): cannot make a temporary file to check a published file "
                + "(\(String(cString: strerror(errno)))); set TMPDIR to a folder with room")
        }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        return fd
    }

    /// Hex SHA-256 of the first `count` bytes of `fd`, read 1 MiB at a time.
    static func sha256(_ fd: Int32, count: Int) throws -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while offset < count {
            let got = buffer.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress!, min($0.count, count - offset), off_t(offset))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw DossierError("a temporary copy of a published file cannot be read back") }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            offset += got
        }
        return FileHash.hex(hasher.finalize())
    }
}
