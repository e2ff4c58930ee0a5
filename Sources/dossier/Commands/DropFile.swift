#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WebDAV

/// One file of a WebDAV drop folder, fetched for `game ingest --from` and `recall ingest
/// --from` (docs/game-telemetry.md, "Ingest from a WebDAV drop folder"). Anyone may put a
/// file into a drop folder, so a file that cannot be an upload must not stop the run: one
/// longer than the client's answer limit (256 MiB) is refused like any other bad upload
/// and left in the folder, and the rest of the folder is still ingested.
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

    /// The reason a too-long file is refused with.
    static func tooLongReason(_ limit: Int) -> String {
        "the file is longer than \(limit) bytes (\(limit >> 20) MiB), more than any upload may be; not read further"
    }
}
