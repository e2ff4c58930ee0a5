#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Replaces a file so that a crash leaves either its old or its new bytes: a new hidden
/// temporary file `tempName` in the same folder (mode 0600, never an existing file), the
/// bytes written and flushed (`fsync`), renamed over `path`, then the folder flushed.
public enum DurableReplace {
    public enum Failure: Error, Sendable, Equatable {
        /// The temporary file could not be made (errno).
        case create(Int32)
        /// Writing, flushing or renaming failed (errno); the temporary file is removed.
        case write(Int32)
    }

    public static func write(_ data: Data, to path: String, tempName: String) -> Failure? {
        let dir = PathText.deletingLastComponent(path)
        let tmp = (dir.isEmpty ? "" : dir + "/") + tempName
        let fd = Glibc.open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { return .create(errno) }
        var ok = data.withUnsafeBytes { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { if n == 0 { errno = EIO }; return false }
                off += n
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        Glibc.close(fd)
        guard ok, rename(tmp, path) == 0 else {
            let e = errno
            unlink(tmp)
            return .write(e)
        }
        let dfd = Glibc.open(dir.isEmpty ? "." : dir, O_RDONLY)
        if dfd >= 0 { fsync(dfd); Glibc.close(dfd) }
        return nil
    }
}
