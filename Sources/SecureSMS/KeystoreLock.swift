#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

// MARK: - One writer at a time

/// An exclusive `flock` on `<keystore>.lock`, held from before the keystore is read
/// until the object is released (every read-modify-write of a keystore holds one).
///
/// The lock is on a side file because a save replaces the keystore by `rename`: a lock
/// on the keystore's own inode would be lost at the first save. The side file is
/// created once (mode 0600, empty) and never removed; a crashed holder's lock ends with
/// its process.
public final class KeystoreLock: Sendable {
    let fd: Int32

    /// The lock file of a keystore.
    public static func lockURL(for keystore: URL) -> URL {
        keystore.deletingLastPathComponent().appendingPathComponent(keystore.lastPathComponent + ".lock")
    }

    /// Takes the lock, trying again every 20 ms for up to `wait` seconds; then gives up
    /// with a message saying another command holds it.
    public init(for keystore: URL, wait: Int) throws {
        let url = KeystoreLock.lockURL(for: keystore)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fd = Glibc.open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SecureSMSError.keystore(
                "\(url.path): cannot open the lock file (\(String(cString: strerror(errno))))")
        }
        let deadline = Date().addingTimeInterval(TimeInterval(max(0, wait)))
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                Glibc.close(fd)
                throw SecureSMSError.busy(path: keystore.path, waited: max(0, wait))
            }
            usleep(20_000)
        }
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        Glibc.close(fd)
    }
}
