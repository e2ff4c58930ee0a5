import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One file of a built site as recorded in the output manifest (see ``SiteManifest``).
public typealias ManifestFile = SiteManifest.Entry

/// The staging folder a build writes into. Nothing here touches the live site until
/// ``commit(to:)`` swaps the finished staging folder into place.
public final class OutputTree: @unchecked Sendable {
    public let staging: URL
    private let lock = NSLock()
    private var files: [String: ManifestFile] = [:]
    private var owners: [String: String] = [:]
    private var createdDirs: Set<String> = []

    public init(staging: URL) throws {
        self.staging = staging
        try? FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    }

    /// Validates a site path: relative, no `..`, no empty components.
    static func check(_ path: String, owner: String) throws {
        if path.isEmpty || path.hasPrefix("/") || path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0.isEmpty }) {
            throw DossierError("\(owner): invalid output path '\(path)'")
        }
    }

    private func claim(_ path: String, owner: String) throws {
        lock.lock(); defer { lock.unlock() }
        if let other = owners[path] {
            throw DossierError("two outputs claim the same path '\(path)' (\(other) and \(owner))")
        }
        owners[path] = owner
    }

    private func ensureDir(_ path: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        if dir.isEmpty { return }
        lock.lock()
        let known = createdDirs.contains(dir)
        lock.unlock()
        if known { return }
        try FileManager.default.createDirectory(at: staging.appendingPathComponent(dir), withIntermediateDirectories: true)
        lock.lock(); createdDirs.insert(dir); lock.unlock()
    }

    /// Writes `data` at `path` and records its hash. Returns the manifest entry.
    @discardableResult
    public func write(_ data: Data, to path: String, owner: String) throws -> ManifestFile {
        try OutputTree.check(path, owner: owner)
        try claim(path, owner: owner)
        try ensureDir(path)
        let url = staging.appendingPathComponent(path)
        guard FileManager.default.createFile(atPath: url.path, contents: data) else {
            throw DossierError(file: url, "cannot write output file")
        }
        let entry = ManifestFile(path: path, sha256: Hashing.sha256(data), size: Int64(data.count))
        lock.lock(); files[path] = entry; lock.unlock()
        return entry
    }

    /// Reuses a file of the previous build (hard link, else copy) with its known hash.
    public func reuse(_ entry: ManifestFile, from previous: URL, owner: String) throws {
        try claim(entry.path, owner: owner)
        try ensureDir(entry.path)
        let src = previous.appendingPathComponent(entry.path).path
        let dst = staging.appendingPathComponent(entry.path).path
        if link(src, dst) != 0 {
            try FileManager.default.copyItem(atPath: src, toPath: dst)
        }
        lock.lock(); files[entry.path] = entry; lock.unlock()
    }

    /// Copies a file from outside the site (assets, media), hashing it.
    @discardableResult
    public func copy(_ source: URL, to path: String, owner: String) throws -> ManifestFile {
        guard let data = FileManager.default.contents(atPath: source.path) else {
            throw DossierError(file: source, "cannot read file")
        }
        return try write(data, to: path, owner: owner)
    }

    public func contains(_ path: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return files[path] != nil
    }

    public var allFiles: [ManifestFile] {
        lock.lock(); defer { lock.unlock() }
        return files.values.sorted { $0.path < $1.path }
    }

    public var paths: Set<String> {
        lock.lock(); defer { lock.unlock() }
        return Set(files.keys)
    }

    /// Swaps the staging folder into `output`: the old site is kept intact until the new
    /// one is complete, then exchanged in one `renameat2(RENAME_EXCHANGE)` where the
    /// kernel supports it (else two renames) and removed.
    public func commit(to output: URL) throws {
        let fm = FileManager.default
        let parent = output.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        if fm.fileExists(atPath: output.path) {
            if exchange(staging.path, output.path) {
                try? fm.removeItem(at: staging)
                return
            }
            let old = parent.appendingPathComponent(".\(output.lastPathComponent).old-\(getpid())")
            try? fm.removeItem(at: old)
            guard rename(output.path, old.path) == 0 else {
                throw DossierError(file: output, "cannot move the previous site aside: \(String(cString: strerror(errno)))")
            }
            guard rename(staging.path, output.path) == 0 else {
                _ = rename(old.path, output.path)
                throw DossierError(file: output, "cannot move the new site into place: \(String(cString: strerror(errno)))")
            }
            try? fm.removeItem(at: old)
        } else {
            guard rename(staging.path, output.path) == 0 else {
                throw DossierError(file: output, "cannot move the new site into place: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Removes the staging folder (after a failed or check-only build).
    public func discard() { try? FileManager.default.removeItem(at: staging) }

    /// Atomically exchanges two paths with `renameat2(RENAME_EXCHANGE)` (Linux ≥ 3.15),
    /// looked up at run time; `false` where unavailable.
    private func exchange(_ a: String, _ b: String) -> Bool {
        #if os(Linux)
        typealias Fn = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let fn = unsafeBitCast(sym, to: Fn.self)
        let AT_FDCWD: Int32 = -100
        let RENAME_EXCHANGE: UInt32 = 2
        return a.withCString { pa in b.withCString { pb in fn(AT_FDCWD, pa, AT_FDCWD, pb, RENAME_EXCHANGE) } } == 0
        #else
        return false
        #endif
    }
}
