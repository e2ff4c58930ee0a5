import Glibc

/// One command at a time on one thing — a site folder, a vault, a privacy ledger, an SMS
/// keystore — through `flock(2)` on a lock file beside it (docs/output-manifest.md, "One
/// command at a time"; docs/vault-cli.md, "One command at a time";
/// docs/securesms-keystore.md). The lock is on a side file because the things it guards are
/// replaced by `rename`, which would take a lock on their own inode with them. The file is
/// never removed; the lock goes with the process that held it, so a killed command leaves
/// nothing to clean up.
public final class CommandLock: @unchecked Sendable {
    public enum Use: Sendable { case write, read }

    private let fd: Int32

    /// The running command's words after `dossier` (`vault add`, `sms encrypt`), as the
    /// lock file records it for a command that has to wait: set once by the command line.
    nonisolated(unsafe) public static var currentCommand = "dossier"

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }   // closing the last descriptor releases the lock

    /// What ``attempt(_:_:command:subject:seconds:waiting:)`` got.
    public enum Outcome {
        case locked(CommandLock)
        /// Another command still held it when the wait ran out.
        case busy
        /// No lock can be had here: the lock file can be neither made nor opened (its
        /// `errno`), or the file system has no locks.
        case unavailable(errno: Int32)
    }

    /// Takes the lock of `file` for `use` (`write`: exclusive, `read`: shared). When another
    /// command holds it in a way that excludes this one, first tells `waiting` which
    /// (`waiting for dossier build (pid 12345) to finish with <subject> …`), then waits as
    /// long as it takes (Ctrl-C stops the wait). Nil when no lock can be had — a folder
    /// where the lock file can be neither made nor opened, a file system without locks:
    /// the command goes on unlocked, as it did before the lock existed.
    public static func take(_ file: String, _ use: Use, command: String, subject: String,
                            waiting: (String) -> Void) -> CommandLock? {
        if case .locked(let lock) = attempt(file, use, command: command, subject: subject, seconds: nil,
                                            waiting: waiting) { return lock }
        return nil
    }

    /// ``take(_:_:command:subject:waiting:)`` with a bounded wait: at most `seconds` (nil:
    /// without limit; 0: not at all, and then nothing is said), trying again every 20 ms.
    public static func attempt(_ file: String, _ use: Use, command: String, subject: String, seconds: Int?,
                               waiting: (String) -> Void) -> Outcome {
        var fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        let writable = fd >= 0
        if fd < 0 {
            // A read-only place: a reader can still lock an existing file. When there is
            // none, the create's error (permission denied, read-only disk) is the one told.
            let createError = errno
            fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return .unavailable(errno: errno == ENOENT ? createError : errno) }
        }
        let op = use == .write ? LOCK_EX : LOCK_SH
        if flock(fd, op | LOCK_NB) != 0 {
            let e = errno
            guard e == EWOULDBLOCK else { close(fd); return .unavailable(errno: e) }
            if seconds == 0 { close(fd); return .busy }
            waiting("waiting for \(holder(fd)) to finish with \(subject) …")
            if let seconds {
                var now = timespec(), end = timespec()
                clock_gettime(CLOCK_MONOTONIC, &end)
                end.tv_sec += seconds
                while flock(fd, op | LOCK_NB) != 0 {
                    clock_gettime(CLOCK_MONOTONIC, &now)
                    guard errno == EWOULDBLOCK || errno == EINTR,
                          now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec)
                    else { close(fd); return .busy }
                    usleep(20_000)
                }
            } else {
                while flock(fd, op) != 0 {
                    guard errno == EINTR else { let e = errno; close(fd); return .unavailable(errno: e) }
                }
            }
        }
        if writable && use == .write {   // who holds it, for the next one to wait (readers change nothing)
            let text = Array("\(getpid()) \(command)\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        return .locked(CommandLock(fd: fd))
    }

    /// `dossier build (pid 12345)` from the file's `<pid> <command>\n`, when that process
    /// still runs; else `another dossier command`.
    static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 64, 0) }
        guard n > 0 else { return "another dossier command" }
        let line = String(decoding: buffer[0..<n], as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 1)
        guard line.hasSuffix("\n"), parts.count == 2, parts[0].allSatisfy({ ("0"..."9").contains($0) }),
              let pid = Int32(parts[0]), pid > 0,
              kill(pid, 0) == 0 || errno == EPERM,
              parts[1].dropLast().allSatisfy({ ("a"..."z").contains($0) || $0 == " " }), parts[1].count > 1
        else { return "another dossier command" }
        return "dossier \(parts[1].dropLast()) (pid \(pid))"
    }
}
