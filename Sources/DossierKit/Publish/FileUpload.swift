import Foundation
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

    private enum One: Sendable { case placed(String), conflict(String) }

    /// Characters in a name that some servers cut a MOVE `Destination` at (wsgidav stops
    /// at `?` and `;` even percent-encoded): such files are PUT straight to their name.
    static func needsDirectPut(_ path: String) -> Bool {
        path.contains { "?;#%".contains($0) }
    }

    /// What the server should hold at a path before it is replaced: the entity tag and
    /// SHA-256 published last.
    struct Expected: Sendable { var etag: String; var sha256: String }

    /// Files confirmed (and written to the journal) together: a run killed after N
    /// uploads has all but the last batch in its journal, so a re-run trusts them
    /// without fetching them again.
    static let confirmBatch = 100

    func uploadAll(_ entries: [SiteManifest.Entry], expected: [String: Expected], journal: PublishJournal,
                   progress: @escaping @Sendable (String) -> Void) async throws -> UploadOutcome {
        var outcome = UploadOutcome()
        let counter = Counter()
        var start = 0
        while start < entries.count {
            let batch = Array(entries[start..<min(start + Publisher.confirmBatch, entries.count)])
            start += batch.count
            let (placed, conflicts) = try await uploadBatch(batch, total: entries.count, counter: counter, expected: expected,
                                                            journal: journal, progress: progress)
            outcome.conflicts += conflicts
            outcome.placed.merge(placed, uniquingKeysWith: { a, _ in a })
        }
        outcome.conflicts.sort()
        return outcome
    }

    private func uploadBatch(_ entries: [SiteManifest.Entry], total: Int, counter: Counter, expected: [String: Expected],
                             journal: PublishJournal, progress: @escaping @Sendable (String) -> Void) async throws
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
        var placed: [String] = []
        var conflicts: [String] = []
        for r in results {
            switch r {
            case .placed(let p): placed.append(p)
            case .conflict(let p): conflicts.append(p)
            }
        }
        let byPath = Dictionary(entries.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        if let failure {
            // What landed before the failure is journalled, so a re-run does not read it again.
            _ = try? await confirm(placed.compactMap { byPath[$0] }, journal: journal)
            journal.close()
            throw failure
        }
        return (try await confirm(placed.compactMap { byPath[$0] }, journal: journal), conflicts)
    }

    /// Sends one file. Returns `.conflict` (and leaves the server's file alone) when the
    /// target no longer has the entity tag `expected`.
    private func uploadOne(_ entry: SiteManifest.Entry, expected known: Expected?) async throws -> One {
        let file = site.appendingPathComponent(entry.path)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw DossierError(file: file.path, "listed in the site manifest but missing; rebuild the site")
        }
        guard Int64(data.count) == entry.size, FileHash.sha256(data) == entry.sha256 else {
            throw DossierError(file: file.path, "changed since the site manifest was written; rebuild the site")
        }
        let type = Publisher.contentType(entry.path)
        // The tag the target must still have: the one published last, or — when the
        // server shows another tag for the same bytes (a restored backup, a server that
        // renumbers) — that one.
        var expected = known?.etag
        if let known {
            if let there = try await client.stat(entry.path), let tag = there.etag, tag != known.etag {
                guard let current = try await stillPublished(entry.path, sha256: known.sha256) else { return .conflict(entry.path) }
                expected = current
            }
        }
        if Publisher.needsDirectPut(entry.path) {
            do {
                try await putCreatingFolders(entry.path, data: data, precondition: expected.map { .ifMatch($0) } ?? .none, type: type)
            } catch let e as WebDAVError where e.httpStatus == 412 {
                return .conflict(entry.path)
            }
            return .placed(entry.path)
        }
        let temp = Publisher.temporaryPath(for: entry.path)
        try await putCreatingFolders(temp, data: data, precondition: .none, type: type)
        do {
            try await client.move(temp, to: entry.path, overwrite: true, ifDestinationMatches: expected)
        } catch let e as WebDAVError where e.httpStatus == 412 {
            _ = try? await client.delete(temp)
            return .conflict(entry.path)
        } catch let e as WebDAVError where e.httpStatus == 404 {
            // A retried MOVE whose first attempt landed but whose answer was lost: the
            // temporary file is gone; `confirm` checks the file is in place.
            guard try await client.stat(temp) == nil else { throw e }
        }
        return .placed(entry.path)
    }

    /// The target's current entity tag when its bytes are still the ones published last
    /// (`sha256`); nil when someone changed them.
    func stillPublished(_ path: String, sha256: String) async throws -> String? {
        guard let (data, tag) = try await client.getIfExists(path), FileHash.sha256(data) == sha256 else { return nil }
        if let tag { return tag }
        return try await client.stat(path)?.etag
    }

    private func putCreatingFolders(_ path: String, data: Data, precondition: WebDAVClient.Precondition, type: String) async throws {
        do {
            try await client.put(path, data: data, precondition: precondition, contentType: type)
        } catch let e as WebDAVError where e.httpStatus == 409 {
            // A folder vanished on the server: recreate it and try once more.
            try await client.makeCollections(Publisher.parent(of: path))
            try await client.put(path, data: data, precondition: precondition, contentType: type)
        }
    }

    /// Checks, one PROPFIND per folder, that every file sent is on the server under its
    /// own name with its size; records its entity tag. A file that is not (a server that
    /// mangled the MOVE destination) is PUT straight to its name once; if it is still
    /// not there, publish stops with an error rather than report it published.
    private func confirm(_ entries: [SiteManifest.Entry], journal: PublishJournal) async throws -> [String: String?] {
        var tags: [String: String?] = [:]
        let folders = Dictionary(grouping: entries, by: { Publisher.parent(of: $0.path) })
        for (folder, files) in folders.sorted(by: { $0.key < $1.key }) {
            let listed = Dictionary((try await client.propfind(folder, depth: 1)).map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
            for e in files {
                var found = listed[e.path]
                if found == nil || found!.isCollection || (found!.contentLength.map { $0 != e.size } ?? false) {
                    guard let data = FileManager.default.contents(atPath: site.appendingPathComponent(e.path).path) else {
                        throw DossierError(file: e.path, "missing locally; rebuild the site")
                    }
                    try await client.put(e.path, data: data, contentType: Publisher.contentType(e.path))
                    found = try await client.stat(e.path)
                    guard let f = found, !f.isCollection, f.contentLength.map({ $0 == e.size }) ?? true else {
                        throw DossierError("\(client.url(e.path).absoluteString): the server does not store this file under its name (it changed the name on MOVE and PUT); rename the file — it was not published")
                    }
                }
                tags[e.path] = found?.etag
                journal.recordDone(e.path, sha256: e.sha256, etag: found?.etag)
            }
        }
        return tags
    }
}
