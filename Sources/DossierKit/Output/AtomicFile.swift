#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so a reader never sees half of one: temp file in the same folder,
/// flushed to disk, then renamed over the target. With `sync` (the default) the file is
/// flushed before the rename and its folder after it, so a crash or power cut leaves the
/// old file or the whole new one, and the new name survives once `write` returns.
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL, sync: Bool = true, mode: mode_t = 0o644) throws {
        try write(to: url, sync: sync, mode: mode) { write in try data.withUnsafeBytes { try write($0) } }
    }

    /// Writes what `body` hands to its `write` function, in order, as the new contents
    /// of `url` (same guarantees: a reader sees the old file or the whole new one).
    public static func write(to url: URL, sync: Bool = true, mode: mode_t = 0o644,
                             _ body: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let dir = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try replace(url.path, tmp: tempPath(in: dir.path, for: url.lastPathComponent), sync: sync, mode: mode, body)
        if sync { syncFolder(dir.path) }
    }

    /// ``write(_:to:sync:mode:)`` without the flush (`sync: false`) of `bytes` as the file
    /// `name` in `folder`, a folder that exists: no folder made (two `stat`s) and no
    /// `URL` made or read, per file (a study build writes one a participant: its row
    /// blocks). `AtomicFileTests` compares the two.
    public static func writeUnsynced(_ bytes: UnsafeRawBufferPointer, name: String, inFolder folder: String,
                                     mode: mode_t = 0o644) throws {
        try replace(folder + "/" + name, tmp: tempPath(in: folder, for: name), sync: false, mode: mode) {
            try $0(bytes)
        }
    }

    /// `<folder>/.<name>.tmp-<pid>-<random>`: the temp file beside the target.
    static func tempPath(in folder: String, for name: String) -> String {
        folder + "/." + name + ".tmp-" + String(processID) + "-" + String(UInt32.random(in: 0...UInt32.max))
    }

    /// The temp file `tmp` made (never over an existing one), filled by `body`, flushed
    /// with `sync`, then renamed over `target`; on any failure removed, and the error
    /// names `target`.
    private static func replace(_ target: String, tmp: String, sync: Bool, mode: mode_t,
                                _ body: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, mode)
        guard fd >= 0 else { throw FileSystemErrors.failed(target, "cannot write") }
        var ok = true
        var code: Int32 = EIO   // why a write or the flush failed (ENOSPC, EFBIG, EIO, …)
        do {
            try body { buf in
                var off = 0
                while ok && off < buf.count {
                    let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { ok = false; code = n < 0 ? errno : EIO; break }
                    off += n
                }
            }
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        if ok && sync && fsync(fd) != 0 { ok = false; code = errno }
        close(fd)
        guard ok else { unlink(tmp); throw FileSystemErrors.failed(target, "cannot write", errno: code) }
        guard rename(tmp, target) == 0 else {
            unlink(tmp)
            throw FileSystemErrors.failed(target, "cannot replace")
        }
    }

    /// This process's id (the temp files' names), asked once.
    static let processID = getpid()

    /// Flushes a folder's entries (the rename just made) to disk. A folder that cannot be
    /// opened for reading is left to the system's own write-back: the file is in place.
    static func syncFolder(_ path: String) {
        let dfd = open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY)
        guard dfd >= 0 else { return }
        fsync(dfd)
        close(dfd)
    }
}
