#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// What a publish must do to turn the server's copy (its manifest) into the local site:
/// a pure function of the two manifests, so it is unit-tested without a server.
public struct PublishPlan: Sendable, Equatable {
    public enum Reason: String, Sendable { case new, changed }

    /// Files to send, in upload order: everything but HTML first, then HTML pages, the
    /// site's root `index.html` last — a page never links to an asset not yet there.
    public var uploads: [(entry: SiteManifest.Entry, reason: Reason)]
    /// Remote files the local site no longer has, sorted.
    public var deletes: [String]
    /// Files identical on both sides (same SHA-256 and size).
    public var unchanged: Int
    /// Folders to create (MKCOL), parents before children.
    public var collectionsToCreate: [String]
    /// Folders the old site had and the new one does not, deepest first (deleted only
    /// when empty).
    public var collectionsToRemove: [String]

    public var isEmpty: Bool { uploads.isEmpty && deletes.isEmpty && collectionsToRemove.isEmpty }

    public static func == (a: PublishPlan, b: PublishPlan) -> Bool {
        a.uploads.map { "\($0.entry.path)|\($0.entry.sha256)|\($0.reason)" }
            == b.uploads.map { "\($0.entry.path)|\($0.entry.sha256)|\($0.reason)" }
            && a.deletes == b.deletes && a.unchanged == b.unchanged
            && a.collectionsToCreate == b.collectionsToCreate && a.collectionsToRemove == b.collectionsToRemove
    }

    /// Compares `local` with `remote` (nil: nothing published yet).
    public init(local: SiteManifest, remote: SiteManifest?) {
        let old = Dictionary((remote?.files ?? []).map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let newPaths = Set(local.files.map(\.path))
        var ups: [(SiteManifest.Entry, Reason)] = []
        var same = 0
        for e in local.files {
            if let o = old[e.path] {
                if o.sha256 == e.sha256 && o.size == e.size { same += 1 } else { ups.append((e, .changed)) }
            } else {
                ups.append((e, .new))
            }
        }
        uploads = ups.sorted { PublishPlan.uploadRank($0.0.path) < PublishPlan.uploadRank($1.0.path) }
            .map { (entry: $0.0, reason: $0.1) }
        deletes = old.keys.filter { !newPaths.contains($0) }.sorted()
        unchanged = same
        let oldDirs = PublishPlan.folders(of: old.keys)
        let newDirs = PublishPlan.folders(of: newPaths)
        collectionsToCreate = newDirs.subtracting(oldDirs).sorted {
            ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1)
        }
        collectionsToRemove = oldDirs.subtracting(newDirs).sorted {
            ($0.split(separator: "/").count, $0) > ($1.split(separator: "/").count, $1)
        }
    }

    /// Sort key: (0 non-HTML | 1 HTML | 2 root index.html, path).
    static func uploadRank(_ path: String) -> (Int, String) {
        if path == "index.html" { return (2, path) }
        return (path.hasSuffix(".html") || path.hasSuffix(".htm") ? 1 : 0, path)
    }

    /// Every folder that holds one of `paths`, with all its ancestors (`a/b/c.html` →
    /// `a`, `a/b`).
    static func folders<S: Sequence>(of paths: S) -> Set<String> where S.Element == String {
        var out = Set<String>()
        for p in paths {
            var parts = p.split(separator: "/").dropLast()
            while !parts.isEmpty {
                out.insert(parts.joined(separator: "/"))
                parts = parts.dropLast()
            }
        }
        return out
    }
}
