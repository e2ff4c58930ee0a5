#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV

/// Recovering from what an interrupted publish leaves on a server that keeps cut
/// uploads under their final name (docs/publish.md, "Interrupted publishes"): a cut
/// remote manifest, lost answers to its PUT, files and folders only a publish may delete.
extension Publisher {
    /// Whether `data` is one whole JSON text (JSONDecoder checks all of it before decoding
    /// anything, and `Anything` takes any value).
    static func isJSON(_ data: Data) -> Bool {
        struct Anything: Decodable { init(from decoder: Decoder) throws {} }
        return (try? JSONDecoder().decode(Anything.self, from: data)) != nil
    }

    /// True when `data` is what a cut upload of the remote manifest leaves: empty, or
    /// starting with `{` but not valid JSON. (Any other undecodable manifest is refused.)
    static func looksCut(_ data: Data) -> Bool {
        if data.isEmpty { return true }
        guard data.first == UInt8(ascii: "{") else { return false }
        return !isJSON(data)
    }

    /// The server's manifest. A cut one reads as dirty — so the server is listed and
    /// checked — with the files of this machine's copy of the last clean manifest it
    /// wrote there (none when it has no copy): only those, and files this machine's
    /// journal owns, may then be deleted.
    func readRemote(_ data: Data, journal: PublishJournal, progress: (String) -> Void) throws -> RemoteSite {
        let shown = client.url(Publisher.remoteManifestName).absoluteString
        do {
            return try RemoteSite.decode(data, shown: shown)
        } catch let e as DossierError {
            guard Publisher.looksCut(data) else { throw e }
            progress(
                "\(shown): the manifest on the server was cut short by an interrupted upload; checking what the server "
                    + "holds"
            )
            if let copy = FileManager.default.contents(atPath: journal.publishedURL.path),
               var last = try? RemoteSite.decode(copy, shown: journal.publishedURL.path) {
                last.dirty = true
                return last
            }
            return RemoteSite(files: [], etags: [:], dirty: true)
        }
    }

    /// Paths a run may delete: with `--verify` everything the scan found; after an
    /// interrupted publish, what the server's manifest listed as published or pending plus
    /// what this machine's journal owns; otherwise what the clean manifest lists.
    func deletable(remote: RemoteSite?, scan: RemoteScan?, verify: Bool, journal: PublishJournal) -> Set<String> {
        if let scan, verify { return Set(scan.files.keys) }
        var owned = Set((remote?.files ?? []).map(\.path))
        if scan != nil {
            owned.formUnion(remote?.pending ?? [])
            owned.formUnion(journal.owned)
            owned.formUnion(journal.done.keys)
            owned.formUnion(journal.started)
        }
        return owned
    }

    /// Folders to remove when empty, deepest first: after a scan, every listed folder the
    /// site does not have that held (or would have held) a deletable file — any such
    /// folder with `--verify`; otherwise the plan's.
    func foldersToRemove(
        plan: PublishPlan, scan: RemoteScan?, verify: Bool, owned: Set<String>, local: SiteManifest
    ) -> [String] {
        guard let scan else { return plan.collectionsToRemove }
        let localDirs = PublishPlan.folders(of: local.files.map(\.path))
        var candidates = scan.folders.subtracting(localDirs)
        if !verify { candidates.formIntersection(PublishPlan.folders(of: owned)) }
        return candidates.sorted { ($0.split(separator: "/").count, $0) > ($1.split(separator: "/").count, $1) }
    }

    /// PUTs the remote manifest; returns its new entity tag (from the answer, else a
    /// PROPFIND), nil when the server gives none. A 412 is looked at before it is
    /// believed: the server holding exactly these bytes means the answer to our own PUT
    /// was lost (the write is done); a cut manifest there is our own PUT cut short and
    /// retried, replaced over its tag. Anything else is another publisher: thrown.
    /// An answer without a strong entity tag does not prove the write (a lagging or
    /// dropping server): the manifest is then read back, and written once more over the
    /// tag it replaced when it is not there (docs/publish.md, "Read-back").
    func putManifest(_ site: RemoteSite, precondition: WebDAVClient.Precondition) async throws -> String? {
        let name = Publisher.remoteManifestName
        let bytes = try site.encoded()
        do {
            if let tag = try await client.putStrongTag(name, data: bytes, precondition: precondition,
                                                       contentType: "application/json") {
                return tag
            }
            return try await readBackManifest(bytes, precondition: precondition)
        } catch let e as WebDAVError where e.httpStatus == 412 {
            guard let (there, tag) = try await client.getIfExists(name) else { throw e }
            if there == bytes {
                if let tag { return tag }
            } else if Publisher.looksCut(there), let tag {
                let again = try await client.put(
                    name, data: bytes, precondition: .ifMatch(tag), contentType: "application/json")
                if let again { return again }
            } else {
                throw e
            }
        }
        return try await client.stat(name)?.etag
    }

    private func readBackManifest(_ bytes: Data, precondition: WebDAVClient.Precondition) async throws -> String? {
        let name = Publisher.remoteManifestName
        if let (_, tag) = try await client.readBack(name, maxBytes: max(bytes.count, 1), accept: { $0 == bytes }) {
            return tag
        }
        try await client.put(name, data: bytes, precondition: precondition, contentType: "application/json")
        if let (_, tag) = try await client.readBack(name, maxBytes: max(bytes.count, 1), accept: { $0 == bytes }) {
            return tag
        }
        throw DossierError("\(client.url(name).absoluteString): the server answered the upload of the publish manifest "
            + "but does not hold it (it dropped the write, or shows it late); the publish is not finished — run "
            + "`dossier publish` again, and if this repeats, check the server")
    }

    /// DELETEs each folder of `folders` (deepest first) that a `PROPFIND Depth: 1` shows
    /// empty; never one holding anything. A folder already gone (404) is skipped; any
    /// other failure of the look stops the publish before its clean manifest, so the next
    /// run (which then lists the server) removes the folder — ignoring it left the empty
    /// folder behind a clean, up-to-date manifest for good.
    func removeEmptyFolders(_ folders: [String]) async throws {
        for folder in folders {
            let items: [DAVResource]
            do {
                items = try await client.propfind(folder, depth: 1)
            } catch let e as WebDAVError where e.httpStatus == 404 {
                continue
            }
            if items.allSatisfy({ $0.path == folder }) {
                try await client.delete(folder, collection: true)
            }
        }
    }
}
