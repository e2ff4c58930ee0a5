#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_exported import ProcessLocks

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
