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
        self.files = files.sorted { $0.path < $1.path }
        self.etags = etags
        self.dirty = dirty
        self.dossier = dossier
    }

    private struct Extra: Codable {
        var dirty: Bool?; var etags: [String: String]?; var pending: [String]?; var lease: PublishLease?
    }

    /// Parses the server's manifest; `shown` names it in errors.
    public static func decode(_ data: Data, shown: String) throws -> RemoteSite {
        let m = try SiteManifest.decode(data, shown: shown)
        let extra = (try? JSONDecoder().decode(Extra.self, from: data)) ?? Extra()
        var site = RemoteSite(
            files: m.files, etags: extra.etags ?? [:], dirty: extra.dirty ?? false, dossier: m.dossier)
        site.pending = (extra.pending ?? []).filter { SiteManifest.pathProblem($0) == nil }
        site.lease = site.dirty ? extra.lease : nil
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
