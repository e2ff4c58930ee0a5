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
    /// Whether the file at `path`, in a folder whose real path is `realFolder`, is
    /// allowed without resolving it: it is no symbolic link (`lstat`, whose result goes
    /// to `st`), so it resolves to `realFolder/name`, and that lies in the project or an
    /// allowed path. False means "not known": ``check(_:shown:)`` decides.
    func allowsPlainFile(_ path: String, realFolder: String, stat st: inout stat) -> Bool {
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
              let slash = path.utf8.lastIndex(of: 0x2F) else { return false }
        let name = path[path.utf8.index(after: slash)...]
        let resolved = realFolder.hasSuffix("/") ? realFolder + name : realFolder + "/" + name
        return Confinement.isWithin(resolved, root) || allowed.contains { Confinement.isWithin(resolved, $0) }
    }

    public func check(_ url: URL, shown: String) throws {
        let lexical = url.standardizedFileURL.path
        // Named outside the project: the author's explicit path, not a link from inside.
        guard Confinement.isWithin(lexical, named) || Confinement.isWithin(lexical, root) else { return }
        let resolved = Confinement.real(url)
        if Confinement.isWithin(resolved, root) || allowed.contains(where: { Confinement.isWithin(resolved, $0) }) {
            return
        }
        throw DossierError(
            file: shown,
            "links outside the project (to \(resolved)); list that path under allow_outside: in dossier.yml to read it")
    }
}

/// Reading one input file with its limit and confinement checked first.
public enum InputFile {
    /// The bytes of `url` (shown as `shown` in errors): a regular file (links followed)
    /// of at most `limit` bytes, inside the project unless allowed.
    public static func read(
        _ url: URL, shown: String, limit: Int64, what: String, confinement: Confinement?
    ) throws -> Data {
        try read(url, shown: shown, limit: limit, what: what, confinement: confinement, realFolder: nil)
    }

    /// ``read(_:shown:limit:what:confinement:)`` of a file whose folder's real path
    /// (``Confinement/real(_:)``) is `realFolder`, when the caller knows it (content
    /// pages: one folder, many files). A file that is not a symbolic link resolves to
    /// `realFolder/name`, so one `lstat` settles the confinement; a link, or a folder
    /// outside, takes ``Confinement/check(_:shown:)`` as before (`ConfinementTests`).
    static func read(_ url: URL, shown: String, limit: Int64, what: String, confinement: Confinement?,
                     realFolder: String?) throws -> Data {
        try read(path: url.path, url: { url }, shown: shown, limit: limit, what: what, confinement: confinement,
                 realFolder: realFolder)
    }

    /// ``read(_:shown:limit:what:confinement:realFolder:)`` of the file at `path`; `url`
    /// gives its URL (`path` its `path`) when the full confinement check needs one.
    static func read(path: String, url: () -> URL, shown: String, limit: Int64, what: String,
                     confinement: Confinement?, realFolder: String?) throws -> Data {
        var st = stat()
        if let confinement {
            if let realFolder, confinement.allowsPlainFile(path, realFolder: realFolder, stat: &st) {
                // (`st` is the file's own: it is no link, so lstat and stat agree.)
            } else {
                try confinement.check(url(), shown: shown)
                guard stat(path, &st) == 0 else { throw FileSystemErrors.unreadable(shown, errno: errno) }
            }
        } else {
            guard stat(path, &st) == 0 else { throw FileSystemErrors.unreadable(shown, errno: errno) }
        }
        guard st.st_mode & S_IFMT == S_IFREG else { throw DossierError(file: shown, "not a regular file") }
        let tooBig = DossierError(
            file: shown,
            "\(what) is \(st.st_size) bytes, more than the maximum of \(InputLimits.describe(limit)) (docs/limits.md)")
        guard Int64(st.st_size) <= limit else { throw tooBig }
        // Bounded even when the file grows while it is read.
        guard let data = readBounded(path, expected: Int(st.st_size), limit: Int(limit)) else {
            throw FileSystemErrors.unreadable(shown, errno: errno)
        }
        guard Int64(data.count) <= limit else { throw tooBig }
        return data
    }

    /// At most `limit + 1` bytes of the file at `path`, read straight into a buffer of
    /// the size `stat` gave (plus one byte, to see growth), grown only if the file grew;
    /// nil when it cannot be opened, and empty when a read fails. (Reading through a
    /// 1 MiB scratch buffer zeroed for every content page was 5 % of a page build.)
    ///
    /// The buffer is `malloc`'s, handed to the `Data` as it is (`bytesNoCopy`, freed with
    /// it): `Data(count:)` zeroes its bytes first and reserves about 500 bytes more than
    /// it is asked for — 5 MB at 10,000 content pages, which a build keeps until its end
    /// (docs/perf-pages.md, eighth pass).
    static func readBounded(_ path: String, expected: Int, limit: Int) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let most = limit + 1
        var capacity = min(max(expected, 0), limit) + 1
        guard var buffer = malloc(capacity) else { return nil }
        var got = 0
        while got < most {
            if got == capacity {
                capacity = min(capacity * 2, most)
                guard let grown = realloc(buffer, capacity) else { free(buffer); return nil }
                buffer = grown
            }
            let room = capacity - got
            let n = Glibc.read(fd, buffer + got, room)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { free(buffer); return nil }   // (errno tells why; never taken as an empty file)
            if n == 0 { break }
            got += n
            // A regular file's read comes back short only at its end: no second read
            // just to see the end (one system call a content page).
            if n < room { break }
        }
        if got == 0 { free(buffer); return Data() }
        return Data(bytesNoCopy: buffer, count: got, deallocator: .free)
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
                    throw DossierError(
                        file: shown,
                        "a template is \(st.st_size) bytes, more than the maximum of "
                            + "\(InputLimits.describe(InputLimits.template)) (docs/limits.md)")
                }
            } catch {
                errors.append(contentsOf: error.diagnostics)
            }
        }
        if !errors.isEmpty { throw DossierError(errors) }
    }
}
