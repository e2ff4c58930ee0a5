#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// Dossier's built-in templates (`Templates/`) and site assets (`Site/`).
///
/// They are compiled into the executable by the `EmbedFolders` build plugin, so a copied
/// `dossier` binary is a complete install. `$DOSSIER_RESOURCES` (a folder holding
/// `Templates/` and `Site/`) replaces them — a developer override for trying template or
/// style changes without rebuilding. A project's own `templates/` folder overrides single
/// templates on top of either (see ``TemplateSet``).
public enum Resources {
    /// One built-in file: its path below `Templates/` or `Site/` and its bytes.
    public struct File: Sendable {
        public var path: String
        public var data: Data
        /// Where it came from, for error messages (`<embedded>/…` or a real path).
        public var origin: String
    }

    /// The developer override folder, if `$DOSSIER_RESOURCES` is set (checked).
    static func overrideFolder() throws -> URL? {
        guard let env = ProcessInfo.processInfo.environment["DOSSIER_RESOURCES"], !env.isEmpty else { return nil }
        let u = URL(fileURLWithPath: env)
        let fm = FileManager.default
        guard fm.fileExists(atPath: u.appendingPathComponent("Templates/layout.mustache").path),
              fm.fileExists(atPath: u.appendingPathComponent("Site").path) else {
            throw DossierError("DOSSIER_RESOURCES=\(env) does not hold Templates/layout.mustache and Site/")
        }
        return u
    }

    /// Every file of the built-in folder `top` (`Templates` or `Site`), sorted by path.
    public static func files(in top: String) throws -> [File] {
        if let folder = try overrideFolder() {
            return try filesOnDisk(folder.appendingPathComponent(top))
        }
        let prefix = top + "/"
        return EmbeddedResources.files.keys.filter { $0.hasPrefix(prefix) }.sorted().map { key in
            File(path: String(key.dropFirst(prefix.count)),
                 data: Data(base64Encoded: EmbeddedResources.files[key]!) ?? Data(),
                 origin: "<embedded>/" + key)
        }
    }

    /// One built-in file by its path from the resources' root (`Site/recall/kit/kit.js`).
    public static func data(_ path: String) throws -> Data {
        if let folder = try overrideFolder() {
            guard let d = FileManager.default.contents(atPath: folder.appendingPathComponent(path).path) else {
                throw DossierError("cannot read Dossier's \(path) in DOSSIER_RESOURCES")
            }
            return d
        }
        guard let b64 = EmbeddedResources.files[path], let d = Data(base64Encoded: b64) else {
            throw DossierError("Dossier's built-in \(path) is missing")
        }
        return d
    }

    static func filesOnDisk(_ folder: URL) throws -> [File] {
        let fm = FileManager.default
        guard let files = FolderWalk.regularFiles(under: folder.path, skipHidden: true) else { return [] }
        var out: [File] = []
        for rel in files {
            let url = folder.appendingPathComponent(rel)
            guard let data = fm.contents(atPath: url.path) else { throw DossierError(file: url, "cannot read file") }
            out.append(File(path: rel, data: data, origin: url.path))
        }
        return out.sorted { $0.path < $1.path }
    }

    /// The built-in templates as ``TemplateSet`` sources (name without `.mustache`).
    public static func templates() throws -> [TemplateSet.Source] {
        try files(in: "Templates").filter { $0.path.hasSuffix(".mustache") }.map {
            TemplateSet.Source(name: String($0.path.dropLast(".mustache".count)),
                               text: String(decoding: $0.data, as: UTF8.self), file: $0.origin)
        }
    }
}
