import Foundation
import WebDAV

/// `dossier publish`: makes a WebDAV folder byte-identical to the local site, sending
/// only what changed (see docs/publish.md).
///
/// Steps: read the remote manifest (1 GET) → plan → MKCOL new folders → for each new or
/// changed file PUT a temporary `.<name>.dossier-upload` beside it and MOVE it into
/// place → DELETE removed files (and folders left empty) → PUT the remote manifest last,
/// with `If-Match` on the version read at the start (`If-None-Match: *` the first time),
/// so two publishes racing never silently overwrite each other's manifest.
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
    }

    /// The temporary name a file is uploaded to before it is moved to `path`.
    public static func temporaryPath(for path: String) -> String {
        var parts = path.split(separator: "/").map(String.init)
        let name = parts.removeLast()
        return (parts + ["." + name + temporarySuffix]).joined(separator: "/")
    }

    /// Publishes `local` (the manifest of `site`); with `dryRun` only plans.
    public func run(local: SiteManifest, dryRun: Bool, progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Report {
        let start = Date()
        // 1. The server's view (a 401 here stops everything before any change).
        var remote: SiteManifest? = nil
        var remoteTag: String? = nil
        var baseExists = true
        if let (data, tag) = try await client.getIfExists(Publisher.remoteManifestName) {
            remote = try SiteManifest.decode(data, shown: client.url(Publisher.remoteManifestName).absoluteString)
            remoteTag = tag
        } else {
            baseExists = try await client.stat("") != nil
        }
        let plan = PublishPlan(local: local, remote: remote)
        if dryRun {
            return Report(plan: plan, dryRun: true, uploaded: 0, resumed: 0, deleted: 0,
                          seconds: Date().timeIntervalSince(start), requests: client.stats.summary)
        }
        if plan.isEmpty, let remote, remote.files == local.files {
            // Already up to date: one GET, nothing written.
            PublishJournal(folder: stateFolder, target: client.baseURL).finish()
            return Report(plan: plan, dryRun: false, uploaded: 0, resumed: 0, deleted: 0,
                          seconds: Date().timeIntervalSince(start), requests: client.stats.summary)
        }
        if !baseExists { try await client.mkcol("") }

        // 2. Resume: trust earlier uploads only when the server still shows them.
        let journal = PublishJournal(folder: stateFolder, target: client.baseURL)
        let previousStarted = journal.started
        let resumable = journal.base == remoteTag ? journal.done : [:]
        try journal.begin(base: remoteTag)
        var pending = plan.uploads
        var resumed = 0
        let candidates = plan.uploads.filter { resumable[$0.entry.path]?.sha256 == $0.entry.sha256 && resumable[$0.entry.path]?.etag != nil }
        if !candidates.isEmpty {
            var inPlace = Set<String>()
            let folders = Set(candidates.map { Publisher.parent(of: $0.entry.path) })
            var listed: [String: DAVResource] = [:]
            for folder in folders.sorted() {
                guard let items = try? await client.propfind(folder, depth: 1) else { continue }
                for r in items { listed[r.path] = r }
            }
            for c in candidates {
                if let r = listed[c.entry.path], !r.isCollection, r.etag == resumable[c.entry.path]?.etag,
                   r.contentLength == nil || r.contentLength == c.entry.size {
                    inPlace.insert(c.entry.path)
                }
            }
            pending = plan.uploads.filter { !inPlace.contains($0.entry.path) }
            resumed = inPlace.count
            if resumed > 0 { progress("resuming: \(resumed) file(s) already in place from the interrupted publish") }
        }
        // Temporary files an interrupted run may have left for paths not sent now.
        let sendingNow = Set(pending.map(\.entry.path))
        for stale in previousStarted.subtracting(sendingNow).sorted() where resumable[stale] == nil {
            _ = try? await client.delete(Publisher.temporaryPath(for: stale))
        }

        // 3. Folders, then files (temporary name, then MOVE into place).
        for folder in plan.collectionsToCreate { try await client.mkcol(folder) }
        let total = pending.count
        let counter = Counter()
        // Children never throw into the group: a thrown error would cancel the others,
        // and FoundationNetworking can leave a cancelled request waiting forever. After
        // the first failure no new upload starts; those in flight finish, then it throws.
        let failure: Error? = await withTaskGroup(of: Error?.self) { group in
            var next = 0
            var first: Error? = nil
            func add() {
                let item = pending[next].entry
                next += 1
                group.addTask { [client, site] in
                    do {
                        try await Publisher.upload(item, from: site, client: client, journal: journal)
                    } catch {
                        return error
                    }
                    let n = counter.increment()
                    if n % 500 == 0 || n == total { progress("uploaded \(n)/\(total)") }
                    return nil
                }
            }
            while next < min(concurrency, total) { add() }
            while let result = await group.next() {
                if let error = result, first == nil { first = error }
                if first == nil && next < total { add() }
            }
            return first
        }
        if let failure {
            journal.close()
            throw failure
        }

        // 4. Removed files, then folders left empty (never a folder with foreign files).
        var deleted = 0
        for path in plan.deletes {
            if try await client.delete(path) { deleted += 1 }
        }
        for folder in plan.collectionsToRemove {
            if let items = try? await client.propfind(folder, depth: 1), items.allSatisfy({ $0.path == folder }) {
                try await client.delete(folder, collection: true)
            }
        }

        // 5. The manifest, last, only over the version this run started from.
        let published = SiteManifest(dossier: local.dossier, files: local.files, inputs: nil)
        do {
            try await client.put(Publisher.remoteManifestName, data: try published.encoded(),
                                 precondition: remote == nil ? .ifNoneMatchAny : (remoteTag.map { .ifMatch($0) } ?? .none),
                                 contentType: "application/json")
        } catch let e as WebDAVError where e.httpStatus == 412 {
            journal.close()
            throw DossierError("\(client.url(Publisher.remoteManifestName).absoluteString): the published site changed on the server during this publish (another publish at the same time?); its manifest was not overwritten — run `dossier publish` again")
        }
        journal.finish()
        return Report(plan: plan, dryRun: false, uploaded: pending.count, resumed: resumed, deleted: deleted,
                      seconds: Date().timeIntervalSince(start), requests: client.stats.summary)
    }

    /// Sends one file: PUT to its temporary name, MOVE over the real one.
    static func upload(_ entry: SiteManifest.Entry, from site: URL, client: WebDAVClient, journal: PublishJournal) async throws {
        let file = site.appendingPathComponent(entry.path)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw DossierError(file: file.path, "listed in the site manifest but missing; rebuild the site")
        }
        guard Int64(data.count) == entry.size, FileHash.sha256(data) == entry.sha256 else {
            throw DossierError(file: file.path, "changed since the site manifest was written; rebuild the site")
        }
        let temp = temporaryPath(for: entry.path)
        journal.recordStart(entry.path)
        var etag: String?
        do {
            etag = try await client.put(temp, data: data, contentType: contentType(entry.path))
        } catch let e as WebDAVError where e.httpStatus == 409 {
            // A folder vanished on the server: recreate it and try once more.
            try await client.makeCollections(parent(of: entry.path))
            etag = try await client.put(temp, data: data, contentType: contentType(entry.path))
        }
        do {
            try await client.move(temp, to: entry.path, overwrite: true)
        } catch let e as WebDAVError where e.httpStatus == 404 {
            // A retried MOVE whose first attempt landed but whose answer was lost: the
            // temporary file is gone and the file is in place.
            guard let there = try await client.stat(entry.path), there.contentLength == entry.size else { throw e }
            etag = there.etag
        }
        journal.recordDone(entry.path, sha256: entry.sha256, etag: etag)
    }

    static func parent(of path: String) -> String {
        path.split(separator: "/").dropLast().joined(separator: "/")
    }

    static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
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
    private let lock = NSLock()
    private var n = 0
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
}
