#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV
import TextBasics

/// `dossier publish`: makes a WebDAV folder byte-identical to the local site, sending
/// only what changed (see docs/publish.md).
///
/// Steps: read the remote manifest (1 GET; if it is marked dirty, or with `--verify`,
/// list and check the server's files) → plan → PUT the manifest marked dirty (`If-Match`
/// on the version read, `If-None-Match: *` the first time) → MKCOL new folders → for
/// each new or changed file PUT a temporary `.<name>.dossier-upload` beside it and MOVE
/// it into place (only while the target still has the entity tag last published), then
/// check it is there → DELETE removed files (`If-Match`) and folders left empty → PUT the
/// clean manifest with `If-Match` on the marker. See docs/publish.md for the crash
/// analysis.
public struct Publisher: Sendable {
    /// Name of the manifest kept at the root of the published folder.
    public static let remoteManifestName = ".dossier-manifest.json"
    /// Suffix of temporary upload names.
    public static let temporarySuffix = ".dossier-upload"

    public let client: WebDAVClient
    /// Local site folder.
    public let site: URL
    /// Where the resume journal lives (`<project>/.dossier/publish`).
    public let stateFolder: URL
    /// Parallel uploads.
    public var concurrency: Int = 4

    public init(client: WebDAVClient, site: URL, stateFolder: URL, concurrency: Int = 4) {
        self.client = client
        self.site = site
        self.stateFolder = stateFolder
        self.concurrency = max(1, concurrency)
    }

    /// What a run did.
    public struct Report: Sendable {
        public var plan: PublishPlan
        public var dryRun: Bool
        /// Files actually sent (plan uploads minus those a resumed run found in place).
        public var uploaded: Int
        /// Files a resumed run found already in place and did not send again.
        public var resumed: Int
        public var deleted: Int
        public var seconds: Double
        /// `GET 1, MOVE 1, PUT 2` — requests sent, by method.
        public var requests: String
        /// Files left as they are because the server's copy is not the one last
        /// published (changed by someone else): replaced only by `--verify`.
        public var conflicts: [String] = []
        /// Remote files checked (with `--verify` or after an interrupted publish).
        public var checked: Int?
        /// Remote files fetched to hash them during that check.
        public var fetched = 0
    }

    /// Longest temporary name (UTF-8 bytes) kept readable as `.<name>.dossier-upload`.
    public static let readableTemporaryLimit = 100

    /// The temporary name a file is uploaded to before it is moved to `path`, beside it:
    /// `.<name>.dossier-upload` when that is at most 100 bytes, else
    /// `.<first 16 hex of SHA-256(name)>.dossier-upload` (32 bytes), so it always fits
    /// where the name itself fits (255-byte names included).
    public static func temporaryPath(for path: String) -> String {
        var parts = path.split(separator: "/").map(String.init)
        let name = parts.removeLast()
        var temp = "." + name + temporarySuffix
        if temp.utf8.count > readableTemporaryLimit {
            temp = "." + FileHash.sha256(Data(name.utf8)).prefix(16) + temporarySuffix
        }
        return (parts + [temp]).joined(separator: "/")
    }

    /// Publishes `local` (the manifest of `site`); with `dryRun` only plans. With
    /// `verify`, the server's files are listed and checked first (size and entity tag,
    /// content where the tag is unknown), and every difference is repaired.
    /// `beforeWriting` runs once, just before the first change on the server (never on a
    /// dry run or when the server already holds the site): publish records the release's
    /// privacy spend there (docs/game-privacy.md, "The release ledger").
    public func run(local: SiteManifest, dryRun: Bool, verify: Bool = false,
                    beforeWriting: @Sendable () throws -> Void = {},
                    progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Report {
        let start = Date()
        PublishJournal.sweepDebris(in: stateFolder)
        // 1. The server's view (a 401 here stops everything before any change).
        var remote: RemoteSite? = nil
        var remoteTag: String? = nil
        var baseExists = true
        let journal = PublishJournal(folder: stateFolder, target: client.baseURL)
        if let (data, tag) = try await client.getIfExists(Publisher.remoteManifestName) {
            remote = try readRemote(data, journal: journal, progress: progress)
            remoteTag = tag
            if !dryRun, let r = remote, r.dirty {
                if let problem = r.leaseProblem { throw Publisher.leaseUnreadable(client, problem) }
                if let lease = r.lease, lease.blocks() { throw Publisher.leaseHeld(client, lease) }
            }
        } else {
            baseExists = try await client.stat("") != nil
        }

        // A dirty manifest (a publish stopped half-way) or --verify: plan from what the
        // server really holds, not from what its manifest says.
        var view = remote
        var scan: RemoteScan? = nil
        if baseExists && (verify || remote?.dirty == true) {
            if remote?.dirty == true {
                progress("the last publish to this folder did not finish: checking what the server holds")
            }
            let s = try await RemoteScan.run(
                client, known: known(remote: remote, journal: journal, local: local),
                localSizes: Dictionary(local.files.map { ($0.path, $0.size) }, uniquingKeysWith: { a, _ in a }))
            scan = s
            view = s.site
        }
        var plan = PublishPlan(local: local, remote: view?.manifest)
        // Only files a publish put there are ever deleted (a colleague's file in the
        // folder stays), and folders left empty by an interrupted publish go too.
        let owned = deletable(remote: remote, scan: scan, verify: verify, journal: journal)
        plan.deletes = plan.deletes.filter(owned.contains)
        plan.collectionsToRemove = foldersToRemove(plan: plan, scan: scan, verify: verify, owned: owned, local: local)
        if let s = scan, !verify {
            // Foreign files are not part of what this publish owns: not in its marker.
            let localPaths = Set(local.files.map(\.path))
            view = RemoteSite(
                files: (view?.files ?? []).filter { owned.contains($0.path) || localPaths.contains($0.path) },
                etags: s.site.etags, dirty: false)
        }
        var report = Report(plan: plan, dryRun: dryRun, uploaded: 0, resumed: 0, deleted: 0, seconds: 0, requests: "")
        report.checked = scan?.files.count
        report.fetched = scan?.fetched ?? 0
        if let remote, let scan, remote.dirty {
            // Files the stopped publish had already put in place.
            let claimed = Dictionary(remote.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
            report.resumed =
                local.files.filter { scan.files[$0.path]?.entry.sha256 == $0.sha256 && claimed[$0.path] != $0.sha256 }
                .count
            if report.resumed > 0 {
                progress("resuming: \(report.resumed) file(s) already in place from the interrupted publish")
            }
        }
        func finish() -> Report {
            report.seconds = Date().timeIntervalSince(start)
            report.requests = client.stats.summary
            return report
        }
        if dryRun { return finish() }
        let leftovers = scan?.temporaries ?? []
        if plan.isEmpty, leftovers.isEmpty, let remote, !remote.dirty, remote.files == local.files,
           scan == nil || view?.etags == remote.etags {
            // Already up to date: one GET (and the listing with --verify), nothing written.
            journal.finish()
            return finish()
        }
        try Publisher.checkSite(site, plan.uploads.map(\.entry))
        try beforeWriting()
        if !baseExists { try await client.makeBaseCollection() }

        // 2. Record locally what this run may delete later, then mark the server dirty
        //    before changing anything, over the version read in step 1: a second
        //    publisher is refused here, before it touches a file.
        try journal.claim(owned.intersection(Set((view?.files ?? []).map(\.path))).union(local.files.map(\.path)))
        var marker = view ?? RemoteSite(files: [], etags: [:], dirty: true)
        marker.dirty = true
        marker.lease = PublishLease.mine()
        // What this run (or the unfinished one it takes over) may place beyond the listed
        // files: any later run may delete those when the site no longer has them.
        let listed = Set(marker.files.map(\.path))
        marker.pending = Array(
            Set(plan.uploads.map(\.entry.path)).union(owned.filter { scan?.files[$0] != nil }).subtracting(listed))
        var tag: String?
        do {
            tag = try await putManifest(
                marker, precondition: remote == nil ? .ifNoneMatchAny : (remoteTag.map { .ifMatch($0) } ?? .none))
        } catch let e as WebDAVError where e.httpStatus == 412 {
            throw await markerRefused()
        }
        let keeper = LeaseKeeper(marker: marker, tag: tag, client: client)
        try journal.begin(base: tag)
        for t in leftovers { _ = try? await client.delete(t) }

        // 3. Folders, then files (temporary name, then MOVE into place, conditional on
        //    the entity tag the file is meant to replace).
        for folder in plan.collectionsToCreate { try await client.mkcol(folder) }
        let expected = view?.etags ?? [:]
        let old = Dictionary((view?.files ?? []).map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let published = expected.reduce(into: [String: Expected]()) { out, kv in
            if let o = old[kv.key] { out[kv.key] = Expected(etag: kv.value, sha256: o.sha256, size: o.size) }
        }
        let outcome = try await uploadAll(plan.uploads.map(\.entry), expected: published, journal: journal,
                                          lease: keeper, progress: progress)
        report.uploaded = outcome.placed.count
        report.conflicts = outcome.conflicts

        // 4. Removed files (only while they still hold what was published), then
        //    folders left empty (never a folder with foreign files).
        var keptRemote: [String] = []
        try await keeper.renewIfDue()
        for path in plan.deletes {
            var tag = expected[path]
            if let k = published[path], let there = try await client.stat(path), let now = there.etag, now != k.etag {
                tag = try await stillPublished(path, k)     // same bytes, new tag: fine
                if tag == nil { keptRemote.append(path); report.conflicts.append(path); continue }
            }
            do {
                if try await client.delete(path, precondition: tag.map { .ifMatch($0) } ?? .none) {
                    report.deleted += 1
                    progress("deleted \(path)")
                }
            } catch let e as WebDAVError where e.httpStatus == 412 {
                keptRemote.append(path)
                report.conflicts.append(path)
            }
        }
        try await removeEmptyFolders(plan.collectionsToRemove)

        // 5. The manifest, clean, over the marker. A file left in conflict keeps its old
        //    entry, so the next publish sees the difference again.
        var files: [SiteManifest.Entry] = []
        var etags: [String: String] = [:]
        let conflicted = Set(report.conflicts)
        for e in local.files {
            if conflicted.contains(e.path) {
                if let o = old[e.path] { files.append(o); etags[e.path] = expected[e.path] }
                continue
            }
            files.append(e)
            if let placed = outcome.placed[e.path] { etags[e.path] = placed } else { etags[e.path] = expected[e.path] }
        }
        for path in keptRemote { if let o = old[path] { files.append(o); etags[path] = expected[path] } }
        let clean = RemoteSite(files: files, etags: etags, dirty: false, dossier: local.dossier)
        do {
            _ = try await putManifest(clean, precondition: keeper.tag.map { .ifMatch($0) } ?? .none)
        } catch let e as WebDAVError where e.httpStatus == 412 {
            journal.close()
            throw DossierError(
                "\(client.url(Publisher.remoteManifestName).absoluteString): the published site changed on the server "
                    + "during this publish (another publish at the same time?); its manifest was not overwritten "
                    + "— run `dossier publish` again"
            )
        }
        journal.savePublished(try clean.encoded())
        journal.finish()
        return finish()
    }

    /// Entity tags and hashes the scan may trust: the remote manifest's, and those this
    /// machine's journal recorded for files it put in place.
    func known(remote: RemoteSite?, journal: PublishJournal, local: SiteManifest) -> [String: RemoteScan.Known] {
        var known: [String: RemoteScan.Known] = [:]
        for f in remote?.files ?? [] {
            if let t = remote?.etags[f.path] {
                known[f.path] = RemoteScan.Known(sha256: f.sha256, size: f.size, etag: t)
            }
        }
        let sizes = Dictionary(local.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        for (path, d) in journal.done {
            if let t = d.etag, let e = sizes[path], e.sha256 == d.sha256 {
                known[path] = RemoteScan.Known(sha256: d.sha256, size: e.size, etag: t)
            }
        }
        return known
    }

    static func parent(of path: String) -> String {
        path.split(separator: "/").dropLast().joined(separator: "/")
    }

    static func contentType(_ path: String) -> String {
        switch PathText.pathExtension(path).lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "csv": return "text/csv; charset=utf-8"
        case "txt", "md": return "text/plain; charset=utf-8"
        case "xml": return "application/xml"
        default: return "application/octet-stream"
        }
    }
}

/// A thread-safe counter for progress lines.
final class Counter: @unchecked Sendable {
    private let lock = PlainLock()
    private var n = 0
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
}
