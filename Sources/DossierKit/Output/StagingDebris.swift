#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Leftovers of builds that were killed: `.<output>.staging-<pid>` and
/// `.<output>.old-<pid>` folders beside the output (docs/output-manifest.md, "Staging
/// folder"). Each build removes those whose process is gone before it starts.
public enum StagingDebris {
    /// The pid in `name` when it is `.<output>.staging-<pid>` or `.<output>.old-<pid>`.
    static func pid(of name: String, output: String) -> Int32? {
        for kind in ["staging", "old"] {
            let prefix = ".\(output).\(kind)-"
            if name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count)), pid > 0 { return pid }
        }
        return nil
    }

    /// Whether process `pid` exists (signal 0; EPERM means it exists but is not ours).
    static func alive(_ pid: Int32) -> Bool {
        if pid == getpid() { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Removes the staging and aside folders of `output` left by processes that no longer
    /// run. Returns the names removed.
    @discardableResult
    public static func sweep(beside output: URL) -> [String] {
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        let fm = FileManager.default
        var removed: [String] = []
        for item in ((try? fm.contentsOfDirectory(atPath: parent.path)) ?? []).sorted() {
            guard let pid = pid(of: item, output: name), !alive(pid) else { continue }
            if (try? fm.removeItem(at: parent.appendingPathComponent(item))) != nil { removed.append(item) }
        }
        return removed
    }
}
