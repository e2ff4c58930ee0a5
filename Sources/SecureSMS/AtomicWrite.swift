#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Atomic writes

/// Writes a file so that a crash leaves either the old or the new bytes: a temporary
/// file in the same folder (mode 0600), fsync, rename over the target, fsync the folder.
enum AtomicWrite {
    static func write(_ data: Data, to url: URL) throws {
        let dir = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tmp = dir.appendingPathComponent(
            ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = Glibc.open(tmp.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            throw SecureSMSError.keystore("\(dir.path): cannot write here (\(String(cString: strerror(errno))))")
        }
        var ok = data.withUnsafeBytes { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { return false }
                off += n
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        Glibc.close(fd)
        guard ok, rename(tmp.path, url.path) == 0 else {
            unlink(tmp.path)
            throw SecureSMSError.keystore("\(url.path): could not save (\(String(cString: strerror(errno))))")
        }
        let dfd = Glibc.open(dir.path, O_RDONLY)
        if dfd >= 0 { fsync(dfd); Glibc.close(dfd) }
    }
}
