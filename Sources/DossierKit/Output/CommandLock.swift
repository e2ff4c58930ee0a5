#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// One command at a time on one thing — a site folder, a vault — through `flock(2)` on a
/// lock file beside it (docs/output-manifest.md, "One command at a time"; docs/vault-cli.md,
/// "One command at a time"). The lock is on a side file because the things it guards are
/// replaced by `rename`, which would take a lock on their own inode with them. The file is
/// never removed; the lock goes with the process that held it, so a killed command leaves
/// nothing to clean up.
public final class CommandLock: @unchecked Sendable {
    public enum Use: Sendable { case write, read }

    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }   // closing the last descriptor releases the lock

    /// Takes the lock of `file` for `use` (`write`: exclusive, `read`: shared). When another
    /// command holds it in a way that excludes this one, first tells `waiting` which
    /// (`waiting for dossier build (pid 12345) to finish with <subject> …`), then waits as
    /// long as it takes (Ctrl-C stops the wait). Nil when no lock can be had — a folder
    /// where the lock file can be neither made nor opened, a file system without locks:
    /// the command goes on unlocked, as it did before the lock existed.
    public static func take(_ file: String, _ use: Use, command: String, subject: String,
                            waiting: (String) -> Void) -> CommandLock? {
        var fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        let writable = fd >= 0
        if fd < 0 { fd = open(file, O_RDONLY | O_CLOEXEC) }   // a read-only place: a reader can still lock
        guard fd >= 0 else { return nil }
        let op = use == .write ? LOCK_EX : LOCK_SH
        if flock(fd, op | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else { close(fd); return nil }
            waiting("waiting for \(holder(fd)) to finish with \(subject) …")
            while flock(fd, op) != 0 {
                guard errno == EINTR else { close(fd); return nil }
            }
        }
        if writable && use == .write {   // who holds it, for the next one to wait (readers change nothing)
            let text = Array("\(getpid()) \(command)\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        return CommandLock(fd: fd)
    }

    /// `dossier build (pid 12345)` from the file's `<pid> <command>\n`, when that process
    /// still runs; else `another dossier command`.
    static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 64, 0) }
        guard n > 0 else { return "another dossier command" }
        let line = String(decoding: buffer[0..<n], as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 1)
        guard line.hasSuffix("\n"), parts.count == 2, let pid = Int32(parts[0]), pid > 0,
              kill(pid, 0) == 0 || errno == EPERM,
              parts[1].dropLast().allSatisfy({ ("a"..."z").contains($0) || $0 == " " }), parts[1].count > 1
        else { return "another dossier command" }
        return "dossier \(parts[1].dropLast()) (pid \(pid))"
    }
}

/// The lock of a site folder: `.<name>.lock` beside it. A build holds it exclusively from
/// before it reads the last build's state until its state is saved; a publish or an
/// archive holds it shared while it reads the site and its manifest. So a second build of
/// the same site — another terminal, a scheduled job, a colleague on a shared folder —
/// waits for the first instead of patching the same files and leaving a manifest that
/// describes the other build's site, and a build waits for a publish sending its files.
public enum SiteLock {
    /// `.<name>.lock` beside `site`.
    public static func path(for site: URL) -> String {
        let s = site.standardizedFileURL
        return s.deletingLastPathComponent().path + "/." + s.lastPathComponent + ".lock"
    }

    public static func take(_ site: URL, _ use: CommandLock.Use, command: String,
                            waiting: (String) -> Void) -> CommandLock? {
        CommandLock.take(path(for: site), use, command: command,
                         subject: "this site (one command at a time builds, publishes or archives it)",
                         waiting: waiting)
    }
}
