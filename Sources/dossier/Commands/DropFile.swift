#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import WebDAV

/// One file of a drop folder (WebDAV or local), read for `game ingest` and `recall ingest`
/// (docs/game-telemetry.md, "Ingest from a WebDAV drop folder"). Anyone may put a file
/// into a drop folder, so a file that cannot be an upload must not stop the run nor fill
/// the memory: one longer than 256 MiB (the WebDAV client's answer limit) is refused like
/// any other bad upload, unread past that, and the rest of the folder is still ingested.
enum DropFile {
    case bytes(Data)
    /// Gone since the listing (another ingest took it): the URL that answered 404.
    case gone(String)
    /// Longer than `limit` bytes: the transfer was stopped there.
    case tooLong(limit: Int)

    static func fetch(_ client: WebDAVClient, _ name: String) async throws -> DropFile {
        do { return .bytes(try await client.get(name).data) } catch WebDAVError.notFound(let url) {
            return .gone(url)
        } catch WebDAVError.answerTooLong(_, let limit) {
            return .tooLong(limit: limit)
        }
    }

    /// The longest upload read: the WebDAV client's default answer limit, so a local and a
    /// WebDAV drop refuse the same files.
    static let limit = WebDAVClient.Options().maxAnswerBytes

    /// A local file: `.tooLong` when its size (fstat) is past ``limit`` or it grows past it
    /// while read, `.gone(path)` when it cannot be opened or is not a regular file (a folder,
    /// a FIFO: never waited on).
    static func readLocal(_ path: String) -> DropFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)     // a FIFO must not block the open
        guard fd >= 0 else { return .gone(path) }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return .gone(path) }
        guard st.st_size <= limit else { return .tooLong(limit: limit) }
        var out = Data()
        out.reserveCapacity(Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let r = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if r < 0 && errno == EINTR { continue }
            if r < 0 { return .gone(path) }
            if r == 0 { break }
            if out.count + r > limit { return .tooLong(limit: limit) }     // grew past it while read
            out.append(contentsOf: chunk[..<r])
        }
        return .bytes(out)
    }

    /// The reason a too-long file is refused with.
    static func tooLongReason(_ limit: Int) -> String {
        "the file is longer than \(limit) bytes (\(limit >> 20) MiB), more than any upload may be; not read further"
    }
}
