#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Putting a finished staging folder in place of the live site (a swap, or a patch of
/// the changed files), and removing it after a failed build.
extension OutputTree {
    /// Swaps the staging folder into `output`: the old site is kept intact until the new
    /// one is complete, then exchanged in one `renameat2(RENAME_EXCHANGE)` where the
    /// kernel supports it (else two renames) and removed.
    public func commit(to output: URL) throws {
        if patchTarget != nil { return try patch(output) }
        let fm = FileManager.default
        let parent = output.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        if fm.fileExists(atPath: output.path) {
            if exchange(staging.path, output.path) {
                TreeRemoval.removeTree(staging.path)   // the previous site, now at the staging path
                return
            }
            let old = parent.appendingPathComponent(".\(output.lastPathComponent).old-\(getpid())")
            try? fm.removeItem(at: old)
            guard rename(output.path, old.path) == 0 else {
                throw FileSystemErrors.failed(output.path, "cannot move the previous site aside")
            }
            guard rename(staging.path, output.path) == 0 else {
                _ = rename(old.path, output.path)
                throw FileSystemErrors.failed(output.path, "cannot move the new site into place")
            }
            TreeRemoval.removeTree(old.path)
        } else {
            guard rename(staging.path, output.path) == 0 else {
                throw FileSystemErrors.failed(output.path, "cannot move the new site into place")
            }
        }
    }

    /// Patch mode: moves each changed file over its live copy, then removes the live
    /// files this build did not produce (and folders left empty), then the staging folder.
    private func patch(_ output: URL) throws {
        let root = output.path
        var made: Set<String> = []
        func ensureLive(_ dir: Substring) throws {
            if dir.isEmpty || made.contains(String(dir)) { return }
            if let slash = dir.lastIndex(of: "/") { try ensureLive(dir[..<slash]) }
            let full = root + "/" + dir
            if mkdir(full, 0o755) != 0 {
                var st = stat()
                let isFile = errno == EEXIST && stat(full, &st) == 0 && (st.st_mode & S_IFMT) != S_IFDIR
                // A file of the old site where a folder now goes: the new build cannot
                // also produce that file, so it goes.
                guard isFile, unlink(full) == 0, mkdir(full, 0o755) == 0 || errno == EEXIST else {
                    if errno == EEXIST { made.insert(String(dir)); return }
                    throw FileSystemErrors.failed(full, "cannot create folder")
                }
            }
            made.insert(String(dir))
        }
        for path in staged.sorted() {
            if let slash = path.lastIndex(of: "/") { try ensureLive(path[..<slash]) }
            let dst = root + "/" + path
            if rename(stagingPath + "/" + path, dst) != 0 {
                // A folder where a file now goes (or the reverse) cannot be renamed over.
                var st = stat()
                if stat(dst, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                    try? FileManager.default.removeItem(atPath: dst)
                    if rename(stagingPath + "/" + path, dst) == 0 { continue }
                }
                throw FileSystemErrors.failed(dst, "cannot update the site")
            }
        }
        var emptied: Set<String> = []
        for path in live.keys.sorted() where !isRecorded(path) {
            if unlink(root + "/" + path) == 0 || errno == ENOENT {
                var p = Substring(path)
                while let slash = p.lastIndex(of: "/") { p = p[..<slash]; emptied.insert(String(p)) }
            }
        }
        // Deepest first; rmdir fails (harmlessly) on folders that still hold something.
        for dir in emptied.sorted(by: { $0.count > $1.count }) { _ = rmdir(root + "/" + dir) }
        try? FileManager.default.removeItem(at: staging)
    }

    /// Removes the staging folder (after a failed or check-only build): each file this
    /// tree claimed and each folder it made, by name, deepest first, then the folder
    /// itself — no listing and no `stat` of every entry, which made a failed build of
    /// 10,000 pages cost 1.7 times a passing one. Should anything else be left inside
    /// (nothing writes there but this tree), the folder goes the slow way.
    public func discard() {
        lock.lock()
        let files = Array(owners.keys)
        let folders = createdDirs.sorted { $0.utf8.count > $1.utf8.count }
        lock.unlock()
        let root = stagingPath
        for path in files { unlink(root + "/" + path) }
        for dir in folders { rmdir(root + "/" + dir) }
        if rmdir(root) != 0 && errno != ENOENT { try? FileManager.default.removeItem(at: staging) }
    }

    /// Atomically exchanges two paths with `renameat2(RENAME_EXCHANGE)` (Linux ≥ 3.15),
    /// looked up at run time; `false` where unavailable.
    private func exchange(_ a: String, _ b: String) -> Bool {
        #if os(Linux)
        typealias Fn = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let fn = unsafeBitCast(sym, to: Fn.self)
        let AT_FDCWD: Int32 = -100
        let RENAME_EXCHANGE: UInt32 = 2
        return a.withCString { pa in b.withCString { pb in fn(AT_FDCWD, pa, AT_FDCWD, pb, RENAME_EXCHANGE) } } == 0
        #else
        return false
        #endif
    }
}
