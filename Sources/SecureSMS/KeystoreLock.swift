#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import ProcessLocks

// MARK: - One writer at a time

/// An exclusive lock on `<keystore>.lock` (``CommandLock``), held from before the keystore
/// is read until the object is released (every read-modify-write of a keystore holds one).
///
/// The lock is on a side file because a save replaces the keystore by `rename`: a lock
/// on the keystore's own inode would be lost at the first save. The side file is
/// created once (mode 0600) and never removed; it holds `<pid> <command>\n` of the last
/// command that locked it, so that a command that has to wait can say whom for. A
/// crashed holder's lock ends with its process.
public final class KeystoreLock: Sendable {
    let lock: CommandLock

    /// Where the one line a waiting command prints goes (the command line's standard error).
    nonisolated(unsafe) public static var waiting: (String) -> Void = { _ in }

    /// The lock file of a keystore.
    public static func lockURL(for keystore: URL) -> URL {
        keystore.deletingLastPathComponent().appendingPathComponent(keystore.lastPathComponent + ".lock")
    }

    /// Takes the lock. When another command holds it, says so once (`waiting for dossier sms
    /// encrypt (pid 12345) to finish with this keystore …`, not with `wait` 0) and tries again
    /// every 20 ms for up to `wait` seconds; then gives up with a message saying another
    /// command holds it.
    public init(for keystore: URL, wait: Int) throws {
        let url = KeystoreLock.lockURL(for: keystore)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        switch CommandLock.attempt(url.path, .write, command: CommandLock.currentCommand, subject: "this keystore",
                                   seconds: max(0, wait), waiting: Self.waiting) {
        case .locked(let l):
            lock = l
        case .busy:
            throw SecureSMSError.busy(path: keystore.path, waited: max(0, wait))
        case .unavailable(let e):
            throw SecureSMSError.keystore("\(url.path): cannot open the lock file (\(String(cString: strerror(e))))")
        }
    }
}
