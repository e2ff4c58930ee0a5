// A folder walk on the C library (opendir/readdir/lstat/stat) in place of
// FileManager.enumerator and URLResourceValues, which live in corelibs Foundation (and so
// link ICU): docs/benchmarks.md, "5. Start-up". TextBasicsTests/FolderWalkTests compares
// it with the enumerator on trees with hidden entries, links and nested folders.
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// One entry found by ``FolderWalk``.
public struct WalkedEntry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case file, folder, link, other }
    /// The path below the walked folder, parts joined by `/`.
    public var path: String
    /// What the entry itself is (a link is a link, not what it points to).
    public var kind: Kind
    /// Whether the entry, links followed, is a folder (`fileExists(atPath:isDirectory:)`).
    public var isFolderFollowingLinks: Bool
    /// Size in bytes and modification time (seconds since 1970) of the entry itself.
    public var size: Int64
    public var modified: Double
}

public enum FolderWalk {
    /// Every entry below `root`, depth first, each folder's entries in byte order of their
    /// names; links are listed but never followed into. With `skipHidden`, entries whose
    /// name starts with `.` are left out with everything below them. `descend` is asked
    /// before entering a folder (by its path below `root`). Nil when `root` cannot be read.
    public static func entries(under root: String, skipHidden: Bool,
                               descend: (String) -> Bool = { _ in true }) -> [WalkedEntry]? {
        guard let top = opendir(root) else { return nil }
        closedir(top)
        var out: [WalkedEntry] = []
        walk(root, prefix: "", skipHidden: skipHidden, descend: descend, into: &out)
        return out
    }

    /// The paths below `root` of the regular files in it (links to files are not regular
    /// files), as ``entries(under:skipHidden:descend:)`` finds them.
    public static func regularFiles(under root: String, skipHidden: Bool) -> [String]? {
        entries(under: root, skipHidden: skipHidden)?.filter { $0.kind == .file }.map(\.path)
    }

    /// The size in bytes of the file at `path`, links followed (`attributesOfItem`'s
    /// `.size`); nil when there is none.
    public static func size(atPath path: String) -> Int64? {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : nil
    }

    private static func walk(_ folder: String, prefix: String, skipHidden: Bool, descend: (String) -> Bool,
                             into out: inout [WalkedEntry]) {
        guard let dir = opendir(folder) else { return }
        var names: [String] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." || (skipHidden && name.hasPrefix(".")) { continue }
            names.append(name)
        }
        // Each entry is looked at by its name in the open folder (`fstatat` on the
        // folder's descriptor), not by its full path: the kernel then walks one name,
        // not every folder above it (10,000 content pages, 10,000 walks of the path).
        defer { closedir(dir) }
        let fd = dirfd(dir)
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for name in names {
            let full = folder + "/" + name
            let rel = prefix.isEmpty ? name : prefix + "/" + name
            var st = stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let type = st.st_mode & S_IFMT
            let kind: WalkedEntry.Kind =
                type == S_IFREG ? .file : type == S_IFDIR ? .folder : type == S_IFLNK ? .link : .other
            var followed = st
            let isFolder = kind == .folder || (kind == .link && fstatat(fd, name, &followed, 0) == 0
                                               && followed.st_mode & S_IFMT == S_IFDIR)
            let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            out.append(WalkedEntry(path: rel, kind: kind, isFolderFollowingLinks: isFolder,
                                   size: Int64(st.st_size), modified: modified))
            if kind == .folder, descend(rel) {
                walk(full, prefix: rel, skipHidden: skipHidden, descend: descend, into: &out)
            }
        }
    }
}
