#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV

/// The manifest publish keeps on the server (`.dossier-manifest.json`): the site
/// manifest's `files`, plus what publish needs to trust it (docs/publish.md):
///
/// ```json
/// {"dirty": true,
///  "dossier": "0.1.0",
///  "etags": {"index.html": "16221837-1795436476-6", …},
///  "files": [{"path": "index.html", "sha256": "…", "size": 123}, …]}
/// ```
/// - `dirty` (present and true only while a publish is changing the server): written
///   before the first change, removed by the final write. A dirty manifest's `files` are
///   not trusted: the next publish lists and checks what the server really holds.
/// - `etags`: the entity tag the server gave each file once it was in place; a file's
///   replacement or deletion is made only while the server still shows that tag.
public struct RemoteSite: Sendable, Equatable {
    public var files: [SiteManifest.Entry]
    public var etags: [String: String]
    public var dirty: Bool
    public var dossier: String
    /// In a dirty marker only: paths the unfinished publish may have put in place beyond
    /// `files` (so any machine may delete them when the site no longer has them).
    public var pending: [String] = []
    /// In a dirty marker only: the lease of the publish changing the server.
    var lease: PublishLease?

    public init(
        files: [SiteManifest.Entry], etags: [String: String], dirty: Bool, dossier: String = DossierVersion.string
    ) {
        self.files = files.sorted(by: SiteManifest.inPathOrder)
        self.etags = etags
        self.dirty = dirty
        self.dossier = dossier
    }

    /// In a dirty marker only: why its `lease` member cannot be read (not the shape this
    /// version writes, or an `expires` that is not ISO 8601 UTC). Such a lease is taken as
    /// held: a publish does not run over a lease it cannot judge (docs/publish.md, "The lease").
    var leaseProblem: String?

    /// The members beyond the site manifest's, each read on its own: one that is not of
    /// its shape is noted in `unreadable` and the others are still read.
    private struct Extra: Decodable {
        var dirty: Bool?; var etags: [String: String]?; var pending: [String]?; var lease: PublishLease?
        var unreadable: [String] = []

        private enum Key: String, CodingKey { case dirty, etags, pending, lease }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            func member<T: Decodable>(_ key: Key, _: T.Type) -> T? {
                guard c.contains(key) else { return nil }
                if let v = try? c.decode(T.self, forKey: key) { return v }
                unreadable.append(key.rawValue)
                return nil
            }
            dirty = member(.dirty, Bool.self)
            etags = member(.etags, [String: String].self)
            pending = member(.pending, [String].self)
            lease = member(.lease, PublishLease.self)
        }
    }

    /// Parses the server's manifest; `shown` names it in errors. A member that cannot be
    /// read never makes the manifest look clean: any unreadable `dirty`, `etags`, `pending`
    /// or `lease` makes it dirty (its files are then checked against the server, not
    /// trusted), and in a marker (`dirty` true or unreadable) an unreadable lease is kept
    /// as `leaseProblem`.
    public static func decode(_ data: Data, shown: String) throws -> RemoteSite {
        let m = try SiteManifest.decode(data, shown: shown)
        guard let extra = try? JSONDecoder().decode(Extra.self, from: data) else {
            throw DossierError(file: shown, "not a site manifest: its top level is not a JSON object")
        }
        // Marked as being changed: `dirty` true, or a `dirty` that cannot be read. Only such
        // a marker's lease counts (a clean manifest carries none).
        let marked = (extra.dirty ?? false) || extra.unreadable.contains("dirty")
        let dirty = marked || !extra.unreadable.isEmpty
        var site = RemoteSite(files: m.files, etags: extra.etags ?? [:], dirty: dirty, dossier: m.dossier)
        site.pending = (extra.pending ?? []).filter { SiteManifest.pathProblem($0) == nil }
        guard marked else { return site }
        if extra.unreadable.contains("lease") {
            site.leaseProblem = "its `lease` is not an object of `expires`, `id`, `machine` and `pid`"
        } else if let lease = extra.lease, lease.expiryDate == nil {
            site.leaseProblem = "its lease's `expires` is not an ISO 8601 UTC time"
        } else {
            site.lease = extra.lease
        }
        return site
    }

    private struct Wire: Encodable {
        var dirty: Bool?
        var dossier: String
        var etags: [String: String]
        var files: [SiteManifest.Entry]
        var lease: PublishLease?
        var pending: [String]?
    }

    /// Deterministic JSON (sorted keys, two-space indent, trailing newline).
    public func encoded() throws -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try enc.encode(Wire(dirty: dirty ? true : nil, dossier: dossier, etags: etags, files: files,
                                       lease: dirty ? lease : nil, pending: pending.isEmpty ? nil : pending.sorted()))
        data.append(0x0A)
        return data
    }

    /// The files as a site manifest (for planning).
    public var manifest: SiteManifest { SiteManifest(dossier: dossier, files: files) }
}
