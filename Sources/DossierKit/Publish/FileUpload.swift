#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV

/// Sending the files of a publish: each to a temporary name, then MOVE into place only
/// while the target still holds the version last published, then a check that the server
/// really has it under its name (docs/publish.md, "Replacing a file").
extension Publisher {
    struct UploadOutcome: Sendable {
        /// Files in place, with the entity tag the server now shows (nil: none given).
        var placed: [String: String?] = [:]
        /// Files not replaced because the server's copy changed since the last publish.
        var conflicts: [String] = []
    }

    private enum One: Sendable { case placed(String, Proof), conflict(String) }

    /// Characters in a name that some servers cut a MOVE `Destination` at (wsgidav stops
    /// at `?` and `;` even percent-encoded): such files are PUT straight to their name.
    static func needsDirectPut(_ path: String) -> Bool {
        path.contains { "?;#%".contains($0) }
    }

    /// What the server should hold at a path before it is replaced: the entity tag and
    /// SHA-256 published last.
    struct Expected: Sendable { var etag: String; var sha256: String; var size: Int64 }

    /// Files confirmed (and written to the journal) together: a run killed after N
    /// uploads has all but the last batch in its journal, so a re-run trusts them
    /// without fetching them again.
    static let confirmBatch = 100

    func uploadAll(_ entries: [SiteManifest.Entry], expected: [String: Expected], journal: PublishJournal,
                   lease: LeaseKeeper, progress: @escaping @Sendable (String) -> Void) async throws -> UploadOutcome {
        var outcome = UploadOutcome()
        let counter = Counter()
        var start = 0
        while start < entries.count {
            let batch = Array(entries[start..<min(start + Publisher.confirmBatch, entries.count)])
            start += batch.count
            try await lease.renewIfDue()
            let (placed, conflicts) = try await uploadBatch(
                batch, total: entries.count, counter: counter, expected: expected,
                journal: journal, progress: progress)
            outcome.conflicts += conflicts
            outcome.placed.merge(placed, uniquingKeysWith: { a, _ in a })
        }
        outcome.conflicts.sort()
        return outcome
    }

    private func uploadBatch(
        _ entries: [SiteManifest.Entry], total: Int, counter: Counter, expected: [String: Expected],
        journal: PublishJournal, progress: @escaping @Sendable (String) -> Void
    ) async throws
        -> (placed: [String: String?], conflicts: [String]) {
        // Children never throw into the group: a thrown error would cancel the others,
        // and a request in flight cannot be cancelled (libcurl runs it to its end or
        // time-out), so the group would wait anyway. After
        // the first failure no new upload starts; those in flight finish, then it throws.
        let (results, failure): ([One], Error?) = await withTaskGroup(of: Result<One, Error>.self) { group in
            var next = 0
            var first: Error? = nil
            var done: [One] = []
            func add() {
                let item = entries[next]
                next += 1
                group.addTask { [self] in
                    do {
                        let r = try await uploadOne(item, expected: expected[item.path])
                        let n = counter.increment()
                        if n % 500 == 0 || n == total { progress("uploaded \(n)/\(total)") }
                        return .success(r)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            while next < min(concurrency, entries.count) { add() }
            while let result = await group.next() {
                switch result {
                case .success(let r): done.append(r)
                case .failure(let e): if first == nil { first = e }
                }
                if first == nil && next < entries.count { add() }
            }
            return (done, first)
        }
        var placed: [String: Proof] = [:]
        var conflicts: [String] = []
        for r in results {
            switch r {
            case .placed(let p, let proof): placed[p] = proof
            case .conflict(let p): conflicts.append(p)
            }
        }
        let sent = entries.filter { placed[$0.path] != nil }
        if let failure {
            // What landed before the failure is journalled, so a re-run does not read it again.
            _ = try? await confirm(sent, proofs: placed, journal: journal)
            journal.close()
            throw failure
        }
        return (try await confirm(sent, proofs: placed, journal: journal), conflicts)
    }

    /// Sends one file. Returns `.conflict` (and leaves the server's file alone) when the
    /// target holds neither the bytes published last nor the site's own (nor a cut
    /// upload of them): someone else's change.
    private func uploadOne(_ entry: SiteManifest.Entry, expected known: Expected?) async throws -> One {
        do {
            return try await sendOne(entry, expected: known)
        } catch let e as WebDAVError where [400, 403, 414, 500].contains(e.httpStatus ?? 0) {
            throw Publisher.nameRefused(client, entry.path, e)
        }
    }

    /// The error for a PUT or MOVE the server keeps refusing: the name is the likely cause.
    static func nameRefused(_ client: WebDAVClient, _ path: String, _ e: WebDAVError) -> DossierError {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return DossierError("\(client.url(path).absoluteString): the server refused to store this file "
            + "(HTTP \(e.httpStatus ?? 0), also when tried again); its name is \(name.utf8.count) bytes long"
            + (Publisher.needsDirectPut(path) ? " and holds one of ? ; # %" : "")
            + " — a server that cannot store such a name answers this way: rename the file (shorter, plain letters), "
            + "rebuild and publish again; if other files fail too, the server itself is failing")
    }

    private func sendOne(_ entry: SiteManifest.Entry, expected known: Expected?) async throws -> One {
        let data = try Publisher.siteBytes(site, entry)
        let type = Publisher.contentType(entry.path)
        // The tag the target must still have: the one published last, or — when the
        // server shows another tag — the one of what a read-back finds there, if that is
        // the bytes published last (a restored backup, a server that renumbers) or our
        // own cut upload. The site's own bytes there already: nothing to send.
        var expected = known?.etag
        if let known, let there = try await client.stat(entry.path), let tag = there.etag, tag != known.etag {
            switch try await lookAt(entry.path, sending: data, sha256: entry.sha256, published: known.sha256) {
            case .ours(let t): return .placed(entry.path, Proof(tag: t, mustRead: false))
            case .published(let t), .ownCut(let t): expected = t
            case .missing: expected = nil
            case .foreign: return .conflict(entry.path)
            }
        }
        if Publisher.needsDirectPut(entry.path) {
            return try await putDirect(entry, data: data, expected: expected, published: known?.sha256, type: type)
        }
        let temp = Publisher.temporaryPath(for: entry.path)
        let tag = try await putCreatingFolders(temp, entry: entry, data: data, precondition: .none, type: type)
        do {
            try await client.move(temp, to: entry.path, overwrite: true, ifDestinationMatches: expected)
        } catch let e as WebDAVError where e.httpStatus == 412 {
            _ = try? await client.delete(temp)
            return .conflict(entry.path)
        } catch let e as WebDAVError where e.httpStatus == 404 {
            // A retried MOVE whose first attempt landed but whose answer was lost — or a
            // lagging server that does not show the temporary file yet: the temporary
            // file is gone, and `confirm` reads the target back (content, not size).
            guard try await client.stat(temp) == nil else { throw e }
            return .placed(entry.path, Proof(tag: nil, mustRead: true))
        }
        return .placed(entry.path, Proof(tag: tag, mustRead: false))
    }

    /// A name a MOVE would mangle is PUT straight to its name, `If-Match` the expected
    /// tag. A 412 is read back before it is believed: the site's bytes there (our own
    /// earlier attempt, whose answer was lost) are "already there"; the bytes published
    /// last or our own cut upload are replaced over their tag, once.
    private func putDirect(_ entry: SiteManifest.Entry, data: Data, expected: String?, published: String?,
                           type: String) async throws -> One {
        var condition = expected
        for attempt in 0..<2 {
            do {
                let precondition: WebDAVClient.Precondition = condition.map { .ifMatch($0) } ?? .none
                let tag = try await putCreatingFolders(entry.path, entry: entry, data: data,
                                                       precondition: precondition, type: type)
                return .placed(entry.path, Proof(tag: tag, mustRead: attempt > 0))
            } catch let e as WebDAVError where e.httpStatus == 412 {
                switch try await lookAt(entry.path, sending: data, sha256: entry.sha256, published: published) {
                case .ours(let t): return .placed(entry.path, Proof(tag: t, mustRead: false))
                case .published(let t), .ownCut(let t): condition = t
                case .missing: condition = nil
                case .foreign: return .conflict(entry.path)
                }
            }
        }
        return .conflict(entry.path)
    }

    /// The target's current entity tag when its bytes are still the ones published last
    /// (`published`: their SHA-256 and size); nil when someone changed them. The file is
    /// read into a temporary file, never past the published size (``RemoteFileDigest``).
    func stillPublished(_ path: String, _ published: Expected) async throws -> String? {
        guard case .hashed(let sha, _, let tag) = try await RemoteFileDigest.fetch(
            client, path, limit: Int(clamping: published.size)), sha == published.sha256
        else { return nil }
        if let tag { return tag }
        return try await client.stat(path)?.etag
    }

    /// PUT, recreating vanished folders on a 409; returns the server's strong tag, if any.
    private func putCreatingFolders(_ path: String, entry: SiteManifest.Entry, data: Data,
                                    precondition: WebDAVClient.Precondition, type: String) async throws -> String? {
        do {
            return try await putSiteFile(path, entry, data: data, precondition: precondition, type: type)
        } catch let e as WebDAVError where e.httpStatus == 409 {
            // A folder vanished on the server: recreate it and try once more.
            try await client.makeCollections(Publisher.parent(of: path))
            return try await putSiteFile(path, entry, data: data, precondition: precondition, type: type)
        }
    }

    /// Checks, one PROPFIND per folder, that every file sent is on the server under its
    /// own name: by its strong tag when the listing shows the one our write was given,
    /// otherwise by reading it back (docs/publish.md, "Read-back"); records its tag. A
    /// file that is not there (or holds other bytes) is PUT straight to its name and read
    /// back; if it still is not, publish stops with an error rather than report it published.
    private func confirm(_ entries: [SiteManifest.Entry], proofs: [String: Proof],
                         journal: PublishJournal) async throws -> [String: String?] {
        var tags: [String: String?] = [:]
        let folders = Dictionary(grouping: entries, by: { Publisher.parent(of: $0.path) })
        for (folder, files) in folders.sorted(by: { $0.key < $1.key }) {
            let listed = Dictionary((try await client.propfind(folder, depth: 1)).map { ($0.path, $0) },
                                    uniquingKeysWith: { a, _ in a })
            for e in files {
                let proof = proofs[e.path] ?? Proof(tag: nil, mustRead: true)
                let tag = try await confirmOne(e, listed: listed[e.path], proof: proof)
                tags[e.path] = tag
                journal.recordDone(e.path, sha256: e.sha256, etag: tag)
            }
        }
        return tags
    }
}
