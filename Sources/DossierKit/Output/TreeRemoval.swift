#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Removing a whole folder tree on every core: the previous site after a full build's
/// swap (docs/output-manifest.md, "Swap"). A study's site is thousands of folders of a
/// few files each (820 MB in 10,000 files at 2,000 participants); removed by one thread,
/// it was the last 0.3 s of the build with one core idle. The straightforward twin is
/// `FileManager.removeItem`, which the tests compare it with (`TreeRemovalTests`).
enum TreeRemoval {
    /// How many folders are handed out before the rest is removed as one tree: enough
    /// for every core to stay busy when the folders differ in size.
    static let enoughFolders = 64

    /// Removes `path` and everything under it; a symbolic link is removed, never
    /// followed. Errors are not reported: the caller removes a tree it no longer needs
    /// (what cannot be removed stays, as with `try? FileManager.removeItem`).
    static func removeTree(_ path: String) {
        removeTree(path, cores: ProcessInfo.processInfo.activeProcessorCount)
    }

    static func removeTree(_ path: String, cores: Int) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if cores > 1, st.st_mode & S_IFMT == S_IFDIR {
            let folders = foldersToHandOut(path)
            if folders.count > 1 {
                _ = parallelMap(folders) { try? FileManager.default.removeItem(atPath: $0) }
            }
        }
        // Whatever is left: the files and (now empty) folders above those handed out.
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The folders of the first level below `path` (at most three levels down) that has
    /// at least ``enoughFolders`` of them, or of the deepest level that has any.
    /// Folders are found by `lstat`, so a link to a folder is a file here.
    static func foldersToHandOut(_ path: String) -> [String] {
        var level = [path]
        for _ in 0..<3 {
            let below = level.flatMap(subfolders)
            if below.isEmpty { break }
            level = below
            if level.count >= enoughFolders { break }
        }
        return level == [path] ? [] : level
    }

    /// The real folders directly inside `folder` (not links to one), as paths.
    static func subfolders(_ folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let full = folder + "/" + name
            var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
            if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                var st = stat()
                isFolder = lstat(full, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
            }
            if isFolder { found.append(full) }
        }
        return found
    }
}
