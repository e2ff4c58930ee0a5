#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV

/// What the server really holds under the publish folder, found by walking it with
/// `PROPFIND Depth: 1` folder by folder. A file's SHA-256 is taken from `known` when the
/// server shows the entity tag and size recorded for it; otherwise the file is fetched
/// and hashed (a server without entity tags costs one GET per file): written to a
/// temporary file as it arrives, at most as many bytes as the local site's file of that
/// path has (``RemoteFileDigest``), so neither a large file nor a server that keeps
/// sending fills the memory.
struct RemoteScan: Sendable {
    struct Known: Sendable { var sha256: String; var size: Int64; var etag: String }

    /// Files by path (the remote manifest and temporary uploads excluded).
    var files: [String: (entry: SiteManifest.Entry, etag: String?)] = [:]
    /// Temporary uploads left by an interrupted publish.
    var temporaries: [String] = []
    /// Folders below the publish folder.
    var folders: Set<String> = []
    /// Files fetched to hash them.
    var fetched = 0

    /// `localSizes`: the size of each file of the local site, by path: a remote file of that
    /// path longer than it differs, and is not read past it (a file the local site does not
    /// have is read up to the client's `maxAnswerBytes`).
    static func run(_ client: WebDAVClient, known: [String: Known], localSizes: [String: Int64]) async throws
        -> RemoteScan
    {
        var scan = RemoteScan()
        var queue = [""]
        while let folder = queue.popLast() {
            let listed: [DAVResource]
            do { listed = try await client.propfind(folder, depth: 1) } catch let e as WebDAVError
                where e.httpStatus == 404
            { continue }
            // Only members below the folder listed count, each folder is listed once, and a
            // listing deeper than any site goes stops the scan (a server whose folders have no
            // end would otherwise keep it going).
            for r in listed where isMember(r.path, of: folder) {
                if r.isCollection {
                    if r.path.split(separator: "/").count > maxDepth {
                        throw DossierError("\(client.url(r.path, collection: true).absoluteString): the server lists "
                            + "folders more than \(maxDepth) deep below the publish folder; stopped before any change")
                    }
                    if scan.folders.insert(r.path).inserted { queue.append(r.path) }
                    continue
                }
                let name = r.path.split(separator: "/").last.map(String.init) ?? r.path
                if r.path == Publisher.remoteManifestName { continue }
                if name.hasPrefix(".") && name.hasSuffix(Publisher.temporarySuffix) {
                    scan.temporaries.append(r.path)
                    continue
                }
                if let k = known[r.path], let tag = r.etag, tag == k.etag,
                    r.contentLength == nil || r.contentLength == k.size
                {
                    scan.files[r.path] = (SiteManifest.Entry(path: r.path, sha256: k.sha256, size: k.size), tag)
                    continue
                }
                let limit = localSizes[r.path].map { Int(clamping: $0) } ?? client.maxAnswerBytes
                switch try await RemoteFileDigest.fetch(client, r.path, limit: limit) {
                case .missing: continue
                case .hashed(let sha, let size, let tag):
                    scan.fetched += 1
                    scan.files[r.path] = (SiteManifest.Entry(path: r.path, sha256: sha, size: size), tag ?? r.etag)
                case .longer(let tag):
                    scan.fetched += 1
                    let size = r.contentLength ?? max(Int64(limit), Int64(limit) &+ 1)
                    scan.files[r.path] = (
                        SiteManifest.Entry(path: r.path, sha256: RemoteFileDigest.unknown, size: size), tag ?? r.etag
                    )
                }
            }
        }
        scan.temporaries.sort()
        return scan
    }

    /// How deep below the publish folder the scan goes before it stops.
    static let maxDepth = 64

    /// Whether a listed `path` is a member of `folder` (or deeper): not the folder itself.
    static func isMember(_ path: String, of folder: String) -> Bool {
        !path.isEmpty && path != folder && (folder.isEmpty || path.hasPrefix(folder + "/"))
    }

    /// The scan as a remote manifest, for planning.
    var site: RemoteSite {
        RemoteSite(files: files.values.map { $0.entry }, etags: files.compactMapValues { $0.etag }, dirty: false)
    }
}
