#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// Stamps of the input files a section opened while listing its units (``Section/units()``:
/// a vault unlocked, a keystore's inventory read, before the plan hashes those files), each
/// taken just before the file was read — or, for a keystore, whose open writes the file
/// (it counts the try, then puts the bytes back), just after (docs/incremental.md, "A
/// file parsed early").
/// The plan compares each with its own stamp of the file: another one means the file was
/// written in between, and the units would be built from one version under the key of
/// another.
public final class EarlyReadStamps: @unchecked Sendable {
    private let lock = PlainLock()
    private var byPath: [String: String] = [:]

    public init() {}

    /// Stamps `path` as it is now; call just before reading it.
    public func stamp(_ path: String) {
        let s = Self.text(path) ?? "missing"
        lock.lock(); byPath[path] = s; lock.unlock()
    }

    /// Path → the stamp's text, as ``stamp(_:)`` took it.
    public var all: [String: String] { lock.lock(); defer { lock.unlock() }; return byPath }

    /// A file's size, mtime and ctime (ns), inode and device as text; nil when it cannot
    /// be stat'ed.
    static func text(_ path: String) -> String? {
        BuildState.InputStamp.current(path).map(text)
    }

    static func text(_ s: BuildState.InputStamp) -> String {
        "\(s.size) \(s.mtime) \(s.ctime) \(s.inode) \(s.device)"
    }
}
