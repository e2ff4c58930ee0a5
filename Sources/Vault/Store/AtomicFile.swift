#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Atomic writes

public enum AtomicFile {
    /// temp file in the same folder → write → fsync → rename → fsync the folder.
    public static func write(_ data: Data, to url: URL) throws {
        let dir = url.deletingLastPathComponent()
        let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = Glibc.open(tmp.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw VaultError(.io, "cannot create a temporary file", file: dir.path) }
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
        close(fd)
        guard ok, rename(tmp.path, url.path) == 0 else {
            unlink(tmp.path)
            throw VaultError(.io, "cannot write the file", file: url.path)
        }
        let dfd = Glibc.open(dir.path, O_RDONLY)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}
