#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

extension WebDAVClient {
    /// Attempts a read-back makes by default before it gives up: a lagging server (a write
    /// visible some time after its answer) gets this many looks, with a pause of 0.1 s
    /// doubled after each (at most 3.1 s in all), see docs/webdav.md "A lagging server".
    public static let readBackAttempts = 6

    /// GETs `path` until `accept` says its bytes are the ones expected, at most `attempts`
    /// times; returns them and their entity tag (the GET's, else a `PROPFIND Depth: 0`'s),
    /// or nil when the server never showed them (missing or other bytes). An answer longer
    /// than `maxBytes` is stopped there and counts as other bytes.
    public func readBack(_ path: String, attempts: Int = WebDAVClient.readBackAttempts, maxBytes: Int? = nil,
                         accept: (Data) -> Bool) async throws -> (data: Data, etag: String?)? {
        for attempt in 0..<max(1, attempts) {
            if attempt > 0 { try await Task.sleep(nanoseconds: 100_000_000 << UInt64(attempt - 1)) }
            let got: (data: Data, etag: String?)?
            do { got = try await getIfExists(path, maxBytes: maxBytes) } catch WebDAVError.answerTooLong { continue }
            if let (there, tag) = got, accept(there) {
                return (there, tag == nil ? try await stat(path)?.etag : tag)
            }
        }
        return nil
    }
}
