#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV

/// Deciding by content, never by size (docs/publish.md, "Read-back"): what the server
/// holds at a path is compared with the bytes being sent and the bytes published last,
/// and a file whose write was uncertain (a lost answer, a MOVE answered 404, a server
/// tag that does not prove the bytes) is read back and hashed before it is called placed.
extension Publisher {
    /// What a `GET` found at a path.
    enum Found: Sendable, Equatable {
        /// The site's own bytes (this run's, or an earlier attempt's): already there.
        case ours(String?)
        /// The bytes published last (perhaps under a renumbered tag): may be replaced.
        case published(String?)
        /// A strict prefix of the bytes being sent (an empty file included): our own
        /// upload cut short by a dropped connection, on a server that keeps cut bodies.
        case ownCut(String?)
        /// Anything else: someone else's change, never overwritten by a plain publish.
        case foreign
        /// No file there.
        case missing
    }

    /// How a placed file is confirmed: `tag` is a strong entity tag the server gave for
    /// exactly our bytes (the PUT's answer, or a read-back); when the listing shows it,
    /// the file is confirmed without reading it. `mustRead`: the write's outcome was
    /// uncertain, so the file is read back whatever the listing shows.
    struct Proof: Sendable, Equatable {
        var tag: String?
        var mustRead: Bool
    }

    /// Reads `path` and classifies it against `data` (SHA-256 `sha256`) and the bytes
    /// published last (`published`). The tag is the GET's, else a `PROPFIND Depth: 0`'s.
    func lookAt(_ path: String, sending data: Data, sha256: String, published: String?) async throws -> Found {
        // At most `maxAnswerBytes` (256 MiB): bytes sent from memory are far shorter, so a
        // longer answer is neither ours nor a cut copy of ours (a file published before and
        // longer than that counts as someone else's: a conflict, the file kept).
        let got: (data: Data, etag: String?)?
        do { got = try await client.getIfExists(path) } catch WebDAVError.answerTooLong { return .foreign }
        guard let (there, getTag) = got else { return .missing }
        var tag = getTag
        if tag == nil { tag = try await client.stat(path)?.etag }
        let sha = FileHash.sha256(there)
        if sha == sha256 { return .ours(tag) }
        if let published, sha == published { return .published(tag) }
        if there.count < data.count && data.starts(with: there) { return .ownCut(tag) }
        return .foreign
    }

    /// The entity tag of `entry` on the server once a `GET` shows exactly its bytes; nil
    /// when after `attempts` looks it still does not (missing or other bytes).
    func readBack(_ entry: SiteManifest.Entry, attempts: Int = WebDAVClient.readBackAttempts) async throws -> String?? {
        // Never read past the entry's size: a longer answer is not its bytes (yet).
        guard let (_, tag) = try await client.readBack(entry.path, attempts: attempts,
                                                       maxBytes: Int(clamping: max(entry.size, 1)), accept: {
            Int64($0.count) == entry.size && FileHash.sha256($0) == entry.sha256
        }) else { return nil }
        return .some(tag)
    }

    /// Checks one listed file against its proof; reads it back when the listing does not
    /// prove it (no strong tag from our write, another tag, an uncertain write); sends
    /// it straight to its name when it is not there, and reads it back again. Returns
    /// the tag to record; throws when the server still does not hold the site's bytes.
    func confirmOne(_ e: SiteManifest.Entry, listed: DAVResource?, proof: Proof) async throws -> String? {
        if let f = listed, !f.isCollection, f.contentLength.map({ $0 == e.size }) ?? true,
           let tag = proof.tag, f.etag == tag, !proof.mustRead {
            return tag
        }
        // One look first (an answer the listing did not prove); after sending it again,
        // the full patience for a lagging server.
        if let tag = try await readBack(e, attempts: 1) { return tag ?? listed?.etag }
        let data = try Publisher.siteBytes(site, e)
        _ = try await putSiteFile(e.path, e, data: data, precondition: .none, type: Publisher.contentType(e.path))
        if !Publisher.needsDirectPut(e.path) {
            // A MOVE the server answered but never made leaves the temporary file.
            _ = try? await client.delete(Publisher.temporaryPath(for: e.path))
        }
        if let tag = try await readBack(e) { return tag }
        let shown = client.url(e.path).absoluteString
        throw DossierError("\(shown): the server does not hold this file's bytes under its name "
            + "after it was sent (a name the server changes, or a server that drops writes); it was not published — "
            + "run `dossier publish` again, or rename the file if this repeats")
    }

    /// Files larger than this (32 MiB) are hashed and sent in chunks, never held in
    /// memory; their read-back still GETs them whole (docs/publish.md, "Large files").
    static let streamAbove: Int64 = 32 << 20

    /// Sends a site file: `data`, or — for a file over ``streamAbove`` (whose `data` is
    /// empty) — streamed from the site folder. Returns the strong entity tag, if any.
    func putSiteFile(_ path: String, _ entry: SiteManifest.Entry, data: Data,
                     precondition: WebDAVClient.Precondition, type: String) async throws -> String? {
        if entry.size > Publisher.streamAbove {
            return try await client.putFile(path, file: site.appendingPathComponent(entry.path), size: entry.size,
                                            precondition: precondition, contentType: type)
        }
        return try await client.putStrongTag(path, data: data, precondition: precondition, contentType: type)
    }

    /// The bytes of a site file, checked against its manifest entry; for a file over
    /// ``streamAbove``, checked by a hash read in chunks, and empty bytes returned.
    static func siteBytes(_ site: URL, _ entry: SiteManifest.Entry) throws -> Data {
        let file = site.appendingPathComponent(entry.path)
        if entry.size > streamAbove {
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw missing(file)
            }
            let (sha, size) = try FileHash.sha256(file)
            guard size == entry.size, sha == entry.sha256 else {
                throw changed(file)
            }
            return Data()
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw missing(file)
        }
        guard Int64(data.count) == entry.size, FileHash.sha256(data) == entry.sha256 else {
            throw changed(file)
        }
        return data
    }

    /// Every file about to be uploaded, checked against its manifest entry before the
    /// first change on the server: an edited site stops with nothing written (no dirty
    /// marker, no lease, no privacy spend). Each file is checked again as it is sent.
    static func checkSite(_ site: URL, _ entries: [SiteManifest.Entry]) throws {
        for entry in entries {
            let file = site.appendingPathComponent(entry.path)
            guard FileManager.default.fileExists(atPath: file.path) else { throw missing(file) }
            let (sha, size) = try FileHash.sha256(file)
            guard size == entry.size, sha == entry.sha256 else { throw changed(file) }
        }
    }

    private static func missing(_ file: URL) -> DossierError {
        DossierError(file: file.path, "listed in the site manifest but missing; " + SiteManifest.rebuildAdvice)
    }

    private static func changed(_ file: URL) -> DossierError {
        DossierError(file: file.path, "changed since the site manifest was written; " + SiteManifest.rebuildAdvice)
    }
}
