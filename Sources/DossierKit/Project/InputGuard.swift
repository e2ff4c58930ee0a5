#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// The largest input of each kind a build reads (docs/limits.md). Each is checked with
/// `stat` before the file is read, and the read itself stops one byte past the limit, so
/// an input too big to hold is a clear error (exit 1), never an allocation failure.
public enum InputLimits {
    /// `dossier.yml`: 1 MiB.
    public static let manifest: Int64 = 1 << 20
    /// One content page (`content/**/*.md`): 8 MiB.
    public static let contentPage: Int64 = 8 << 20
    /// The front matter of a content page: 64 KiB.
    public static let frontMatter = 64 << 10
    /// One project template (`templates/**/*.mustache`): 1 MiB.
    public static let template: Int64 = 1 << 20

    static func describe(_ bytes: Int64) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}

/// Which files a build may read through symbolic links: those that resolve inside the
/// project folder or inside a path listed in `allow_outside:` (docs/limits.md, "Files
/// outside the project"). A file named in `dossier.yml` by an absolute or `../` path is
/// the author's explicit choice and is not refused; a file *inside* the project that is
/// a link (or lies in a linked folder) resolving elsewhere is.
public struct Confinement: Sendable {
    /// The project folder, symbolic links resolved, and as named.
    public let root: String
    public let named: String
    /// `allow_outside:` entries, absolute, symbolic links resolved.
    public let allowed: [String]

    public init(root: URL, allowed: [URL] = []) {
        self.root = Confinement.real(root)
        self.named = root.standardizedFileURL.path
        self.allowed = allowed.map(Confinement.real)
    }

    static func real(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path
    }

    static func isWithin(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// Throws `<file>: links outside the project …` when `url` lies (by name) in the
    /// project but resolves outside it and outside every allowed path.
    public func check(_ url: URL, shown: String) throws {
        let lexical = url.standardizedFileURL.path
        // Named outside the project: the author's explicit path, not a link from inside.
        guard Confinement.isWithin(lexical, named) || Confinement.isWithin(lexical, root) else { return }
        let resolved = Confinement.real(url)
        if Confinement.isWithin(resolved, root) || allowed.contains(where: { Confinement.isWithin(resolved, $0) }) { return }
        throw DossierError(file: shown, "links outside the project (to \(resolved)); list that path under allow_outside: in dossier.yml to read it")
    }
}

/// Reading one input file with its limit and confinement checked first.
public enum InputFile {
    /// The bytes of `url` (shown as `shown` in errors): a regular file (links followed)
    /// of at most `limit` bytes, inside the project unless allowed.
    public static func read(_ url: URL, shown: String, limit: Int64, what: String, confinement: Confinement?) throws -> Data {
        if let confinement { try confinement.check(url, shown: shown) }
        var st = stat()
        guard stat(url.path, &st) == 0 else { throw DossierError(file: shown, "cannot read file") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw DossierError(file: shown, "not a regular file") }
        let tooBig = DossierError(file: shown, "\(what) is \(st.st_size) bytes, more than the maximum of \(InputLimits.describe(limit)) (docs/limits.md)")
        guard Int64(st.st_size) <= limit else { throw tooBig }
        guard let handle = PlainFile(forReadingAtPath: url.path) else { throw DossierError(file: shown, "cannot read file") }
        defer { try? handle.close() }
        // Bounded even when the file grows while it is read.
        let data = (try? handle.read(upToCount: Int(limit) + 1)) ?? Data()
        guard Int64(data.count) <= limit else { throw tooBig }
        return data
    }
}

/// The project's template overrides, checked before the template set reads them.
enum ProjectTemplates {
    /// Every `*.mustache` under `folder`: inside the project (or allowed) and within
    /// ``InputLimits/template``.
    static func check(_ folder: URL, confinement: Confinement) throws {
        guard let walked = FolderWalk.entries(under: folder.path, skipHidden: true) else { return }
        var errors: [Diagnostic] = []
        for url in walked.map({ folder.appendingPathComponent($0.path) }) where url.pathExtension == "mustache" {
            let shown = SitePaths.display(url)
            do {
                try confinement.check(url, shown: shown)
                var st = stat()
                if stat(url.path, &st) == 0, Int64(st.st_size) > InputLimits.template {
                    throw DossierError(file: shown, "a template is \(st.st_size) bytes, more than the maximum of \(InputLimits.describe(InputLimits.template)) (docs/limits.md)")
                }
            } catch {
                errors.append(contentsOf: error.diagnostics)
            }
        }
        if !errors.isEmpty { throw DossierError(errors) }
    }
}
