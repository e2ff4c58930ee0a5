#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import WebDAV
#if canImport(Glibc)
import Glibc
#endif
import TextBasics

/// Putting a finished bag at its destination so that a kill at any moment leaves either
/// the old complete bag or the new one there (docs/archive.md, "Replacing a bag"), and
/// sweeping what dead runs left beside it.
enum BagSwap {
    /// Prefix-free marker of a work folder: `.<bag name>.tmp-<pid>`.
    static let workInfix = ".tmp-"

    /// Moves `new` to `destination`. A zip (a file) is renamed over the old one (rename
    /// replaces a file atomically). A folder is exchanged with the old one in one step
    /// (Linux `renameat2(RENAME_EXCHANGE)`); the old bag, now at `new`'s path, is then
    /// removed by the caller's clean-up. Where exchange is unavailable, the old folder is
    /// first renamed to `<new>.old` and put back by ``sweep(beside:bagName:)`` if the run dies
    /// before the new one is in place.
    static func replace(_ destination: URL, with new: URL) throws {
        let fm = FileManager.default
        var isDir = false
        let exists = fm.fileExists(atPath: destination.path, isDirectory: &isDir)
        try FaultPoint.hit("archive: put the bag in place")
        if !exists || !isDir {
            guard rename(new.path, destination.path) == 0 else {
                throw posixError("cannot move the bag into place", destination)
            }
            return
        }
        if exchange(new.path, destination.path) { return }
        let aside = URL(fileURLWithPath: new.path + ".old")
        guard rename(destination.path, aside.path) == 0 else {
            throw posixError("cannot move the old bag aside", destination)
        }
        try FaultPoint.hit("archive: old bag moved aside")
        guard rename(new.path, destination.path) == 0 else {
            throw posixError("cannot move the bag into place", destination)
        }
        try? fm.removeItem(at: aside)
    }

    /// Atomically exchanges two paths; false when the system cannot.
    static func exchange(_ a: String, _ b: String) -> Bool {
        #if os(Linux)
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let f = unsafeBitCast(sym, to: RenameAt2.self)
        let RENAME_EXCHANGE: UInt32 = 2
        return f(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0
        #else
        return false
        #endif
    }

    /// Removes work folders of dead runs beside a bag (`.<bagName>.tmp-<pid>`, whose
    /// process no longer exists) — after putting back an old bag a dead run had moved
    /// aside when the destination is missing.
    static func sweep(beside destination: URL, bagName: String) {
        let fm = FileManager.default
        let folder = destination.deletingLastPathComponent()
        let prefix = ".\(bagName)\(workInfix)"
        guard let names = try? fm.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names.sorted() where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            let pidText = rest.hasSuffix(".old") ? rest.dropLast(4) : rest
            guard let pid = Int32(pidText), !alive(pid) else { continue }
            let path = folder.appendingPathComponent(name)
            if rest.hasSuffix(".old") && !fm.fileExists(atPath: destination.path) {
                _ = rename(path.path, destination.path)
                continue
            }
            try? fm.removeItem(at: path)
        }
    }

    static func alive(_ pid: Int32) -> Bool {
        pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH
    }

    static func posixError(_ what: String, _ url: URL) -> DossierError {
        DossierError(file: SitePaths.display(url), "\(what) (\(String(cString: strerror(errno))))")
    }
}
