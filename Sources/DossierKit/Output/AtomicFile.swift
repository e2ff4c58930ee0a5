import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so a reader never sees half of one: temp file in the same folder,
/// flushed to disk, then renamed over the target.
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL, sync: Bool = true, mode: mode_t = 0o644) throws {
        let dir = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, mode)
        guard fd >= 0 else { throw DossierError(file: url, "cannot write: \(String(cString: strerror(errno)))") }
        var ok = true
        data.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { ok = false; break }
                off += n
            }
        }
        if sync { fsync(fd) }
        close(fd)
        guard ok else { unlink(tmp.path); throw DossierError(file: url, "cannot write: disk full or not writable") }
        guard rename(tmp.path, url.path) == 0 else {
            unlink(tmp.path)
            throw DossierError(file: url, "cannot replace: \(String(cString: strerror(errno)))")
        }
    }
}
