#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TextBasics

/// One file of a built site as recorded in the output manifest (see ``SiteManifest``).
public typealias ManifestFile = SiteManifest.Entry

/// The staging folder a build writes into. Nothing here touches the live site until
/// ``commit(to:)``.
///
/// Two ways to commit (docs/output-manifest.md):
/// - **swap** (full builds): the staging folder holds the whole new site (files of
///   unchanged units hard-linked from the old one) and is exchanged with the live
///   folder in one `renameat2(RENAME_EXCHANGE)`.
/// - **patch** (incremental builds, `patching:` given): the staging folder holds only
///   the files whose bytes changed; commit renames each over its live copy (each file
///   replaced atomically) and removes the files the new build no longer makes. Work is
///   proportional to what changed, not to the size of the site.
public final class OutputTree: @unchecked Sendable {
    public let staging: URL
    /// `staging.path`, made once (a `URL.path` per file written was 4,500 instructions).
    let stagingPath: String
    /// The live site to patch in place, or nil for a swap.
    public let patchTarget: URL?
    /// The live site's files (patch mode): a write whose bytes equal the live file's
    /// is recorded and not written.
    let live: [String: ManifestFile]
    let lock = PlainLock()
    /// Every path claimed in this build → its owner. The files' digests and sizes are not
    /// kept here but by whoever wrote them — a unit's file list, or the build's list of
    /// files outside units — which together make the manifest (a second table of every
    /// file was 0.4 KB a study participant; docs/incremental.md, "Round seven: memory").
    private(set) var owners: [String: String] = [:]
    /// Streams opened and not yet finished: their paths are claimed but not yet files.
    private var openStreams: Set<String> = []
    /// Hashes of the lower-cased paths claimed so far (no lower-cased copy of every path
    /// is kept: 10,000 of them at 2,000 participants). A hash seen before is told apart
    /// by the paths' text: a path differing only in case, or a rare collision.
    private var caseFolded: Set<Int> = []
    /// The hash used for ``caseFolded`` (tests make every path collide).
    var foldHash: (String) -> Int = { $0.hashValue }
    /// Folders made so far, as slices of the paths claimed (which the tree keeps anyway),
    /// not copies of them.
    private(set) var createdDirs: Set<Substring> = []
    /// Paths written into the staging folder (patch mode: the changed files).
    /// (Patch mode only: a swap needs no list of them, and a full build writes 10,000.)
    private(set) var staged: [String] = []
    private var stagedCount = 0
    /// Set by ``stopWriting()``: the build is certain to fail.
    private var stopped = false
    /// The staging folder, open: files and folders are made by their path inside it
    /// (`openat`, `mkdirat`), so the kernel walks only the names below it, not every
    /// folder above it, for each of 10,000 pages (docs/perf-pages.md, eighth pass).
    private let stagingFolder: Int32

    public init(staging: URL, patching target: URL? = nil, liveFiles: [ManifestFile] = []) throws {
        self.staging = staging
        self.stagingPath = staging.path
        self.patchTarget = target
        self.live = target == nil ? [:] : Dictionary(liveFiles.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        try? FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        stagingFolder = open(staging.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard stagingFolder >= 0 else { throw FileSystemErrors.failed(staging.path, "cannot open folder") }
    }

    deinit { close(stagingFolder) }

    /// Patch mode: whether some file of the live site is not (yet) part of this build.
    public func removesLiveFiles(except later: Set<String> = []) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return live.keys.contains { !isRecorded($0) && !later.contains($0) }
    }

    /// Whether `path` is a file of this build (claimed, and not a stream still open).
    /// The caller holds the lock.
    func isRecorded(_ path: String) -> Bool { owners[path] != nil && !openStreams.contains(path) }

    /// Counts a file written into the staging folder (and lists it, in patch mode).
    /// The caller holds the lock.
    private func noteStaged(_ path: String) {
        stagedCount += 1
        if patchTarget != nil { staged.append(path) }
    }

    /// From now on ``write(bytes:to:owner:)`` claims its path and writes nothing: the
    /// build is certain to fail (a page links to a file no later step can make), so each
    /// file written would only be deleted again. The link check still sees every path.
    public func stopWriting() { lock.lock(); stopped = true; lock.unlock() }

    public var stoppedWriting: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    /// The digest recorded for a file not written after ``stopWriting()`` (never saved:
    /// such a build fails).
    static let unwritten = HexDigest(String(repeating: "0", count: 64))

    /// Files written (patch mode: changed) so far.
    public var writtenCount: Int { lock.lock(); defer { lock.unlock() }; return stagedCount }

    /// `path` in storage of its own size. A path made by appending (`base + "raw.csv"`)
    /// has up to twice the room it needs, and the claims and the units' file lists keep
    /// every path until the build ends (10,000 at 2,000 participants).
    static func compact(_ path: String) -> String {
        let count = path.utf8.count
        guard count > 15 else { return path }       // (stored inline)
        var path = path
        return path.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: count) { _ = $0.initialize(fromContentsOf: bytes); return count }
        }
    }

    /// `path.lowercased()`, without a new string for a path of ASCII bytes none of which is
    /// an upper-case letter (every path a usual site writes), which is its own lower-cased
    /// form. Its twin, `lowercased()`, is compared in `OutputTreeTests`.
    static func caseFolded(_ path: String) -> String {
        path.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) ? path : path.lowercased()
    }

    /// Validates a site path: relative, no `..`, no empty components.
    static func check(_ path: String, owner: String) throws {
        // One pass over the bytes: a component is bad when it is empty or "..".
        var ok = !path.isEmpty
        var len = 0, dots = 0
        for b in path.utf8 where ok {
            if b == 0x2F {                                      // "/"
                if len == 0 || (len == 2 && dots == 2) { ok = false }
                len = 0; dots = 0
            } else {
                len += 1
                if b == 0x2E { dots += 1 }                      // "."
            }
        }
        if len == 0 || (len == 2 && dots == 2) { ok = false }
        if !ok { throw DossierError("\(owner): invalid output path '\(path)'") }
    }

    /// Makes room for `count` more claims (and their lower-cased forms' hashes) at once.
    func reserveClaims(_ count: Int) {
        lock.lock(); defer { lock.unlock() }
        owners.reserveCapacity(owners.count + count)
        caseFolded.reserveCapacity(caseFolded.count + count)
    }

    /// Claims `path` for `owner`: refused when it is claimed already, or when a path claimed
    /// already differs from it only in case. A lower-cased form never seen before (every
    /// path of a usual site) is claimed by one insertion that also tells whether the path
    /// is claimed (``claimOnce(_:owner:)``); its twin, ``claimPlainly(_:owner:)`` (the
    /// lookup, the case check, then the insertion), is compared in `OutputTreeTests`.
    func claim(_ path: String, owner: String) throws {
        lock.lock(); defer { lock.unlock() }
        try claimOnce(path, owner: owner)
    }

    /// ``claim(_:owner:)`` with the lock held: two hashes of a new path (its lower-cased
    /// form's, and the claims table's insertion), not three.
    func claimOnce(_ path: String, owner: String) throws {
        let folded = OutputTree.caseFolded(path)
        guard caseFolded.insert(foldHash(folded)).inserted else {
            return try claimPlainly(path, owner: owner, foldSeen: true)
        }
        if let other = owners.updateValue(owner, forKey: path) {
            owners[path] = other                    // (the first claim stands)
            throw DossierError("two outputs claim the same path '\(path)' (\(other) and \(owner))")
        }
    }

    /// The claim as first written: the claims table looked up, then the case check, then
    /// the insertion. The caller holds the lock; `foldSeen` tells that the lower-cased
    /// form's hash is known already (nil: this function inserts it).
    func claimPlainly(_ path: String, owner: String, foldSeen: Bool? = nil) throws {
        if let other = owners[path] {
            throw DossierError("two outputs claim the same path '\(path)' (\(other) and \(owner))")
        }
        // Paths that differ only in case are one file on case-insensitive file systems
        // and servers (docs/output-manifest.md): refused.
        let folded = OutputTree.caseFolded(path)
        let seen = foldSeen ?? !caseFolded.insert(foldHash(folded)).inserted
        let other = seen ? owners.keys.first { $0.lowercased() == folded } : nil   // (`path` is not claimed yet)
        if let other {
            throw DossierError(
                "outputs '\(other)' (\(owners[other] ?? "?")) and '\(path)' (\(owner)) differ only in case; "
                    + "they would overwrite each other on a case-insensitive file system — rename one input")
        }
        owners[path] = owner
    }

    /// Creates the folders above `path` (mkdir(2), once each per build).
    private func ensureDir(_ path: String) throws {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return }
        try ensureFolder(path[..<slash])
    }

    private func ensureFolder(_ dir: Substring) throws {
        lock.lock()
        let known = createdDirs.contains(dir)
        lock.unlock()
        if known { return }
        if let slash = dir.utf8.lastIndex(of: 0x2F) { try ensureFolder(dir[..<slash]) }
        if mkdirat(stagingFolder, String(dir), 0o755) != 0, case let code = errno, code != EEXIST {
            throw FileSystemErrors.failed(stagingPath + "/" + dir, "cannot create folder", errno: code)
        }
        lock.lock(); createdDirs.insert(dir); lock.unlock()
    }

    /// Writes `data` at `path`. Returns the manifest entry (the caller keeps it).
    @discardableResult
    public func write(_ data: Data, to path: String, owner: String) throws -> ManifestFile {
        try data.withUnsafeBytes { try write(bytes: $0, to: path, owner: owner) }
    }

    /// Writes a string's UTF-8 without copying it first.
    @discardableResult
    public func write(_ text: String, to path: String, owner: String) throws -> ManifestFile {
        var text = text
        return try text.withUTF8 { try write(bytes: UnsafeRawBufferPointer($0), to: path, owner: owner) }
    }

    /// The staging folder is private to this build, so each file is written in place
    /// with open/write/close — no temp file and rename per file (the swap in
    /// ``commit(to:)`` is what makes the site appear atomically).
    public func write(bytes: UnsafeRawBufferPointer, to given: String, owner: String) throws -> ManifestFile {
        let path = OutputTree.compact(given)        // (kept as the claim and in the entry)
        try OutputTree.check(path, owner: owner)
        try claim(path, owner: owner)
        if stoppedWriting { return ManifestFile(path: path, digest: Self.unwritten, size: Int64(bytes.count)) }
        let entry = ManifestFile(path: path, digest: HexDigest(sha256: bytes), size: Int64(bytes.count))
        // Unchanged bytes (and the live copy still there): nothing to write.
        if let target = patchTarget, live[path] == entry, access(target.path + "/" + path, F_OK) == 0 {
            return entry
        }
        try ensureDir(path)
        let fd = openat(stagingFolder, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw FileSystemErrors.failed(stagingPath + "/" + path, "cannot write", errno: code)
        }
        let full = stagingPath + "/" + path
        do {
            try OutputFileStream.writeAll(fd, bytes, path: full)
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw FileSystemErrors.failed(full, "cannot write") }
        lock.lock(); noteStaged(path); lock.unlock()
        return entry
    }

    /// A file written piece by piece (``OutputFileStream``): a study-wide table of tens of
    /// megabytes is never held in memory whole. Same rules as ``write(bytes:to:owner:)``:
    /// the path is claimed now and is a file once ``finishStream(_:)`` returns its entry
    /// (dropping the staged copy, in patch mode, when its bytes equal the live file's).
    public func openStream(_ path: String, owner: String) throws -> OutputFileStream {
        try OutputTree.check(path, owner: owner)
        try claim(path, owner: owner)
        lock.lock(); openStreams.insert(path); lock.unlock()
        try ensureDir(path)
        return try OutputFileStream(path: path, full: stagingPath + "/" + path)
    }

    /// A stream given up after a failed copy: no longer open.
    func abandon(_ stream: OutputFileStream) {
        _ = try? stream.close()
        lock.lock(); openStreams.remove(stream.path); lock.unlock()
    }

    /// Closes `stream` and returns its file's entry (see ``openStream(_:owner:)``).
    @discardableResult
    public func finishStream(_ stream: OutputFileStream) throws -> ManifestFile {
        let entry = try stream.close()
        lock.lock(); openStreams.remove(entry.path); lock.unlock()
        if let target = patchTarget, live[entry.path] == entry, access(target.path + "/" + entry.path, F_OK) == 0 {
            unlink(stream.full)
            return entry
        }
        lock.lock(); noteStaged(entry.path); lock.unlock()
        return entry
    }

    /// Reuses a file of the previous build (hard link, else copy) with its known hash.
    public func reuse(_ entry: ManifestFile, from previous: URL, owner: String) throws {
        try claim(entry.path, owner: owner)
        if patchTarget != nil { return }            // it stays where it is
        try ensureDir(entry.path)
        let src = previous.appendingPathComponent(entry.path).path
        let dst = staging.appendingPathComponent(entry.path).path
        if link(src, dst) != 0 {
            try FileManager.default.copyItem(atPath: src, toPath: dst)
        }
    }

    /// Bytes read at a time by ``copy(_:to:owner:)``.
    static let copyChunk = 1 << 20

    public func contains(_ path: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return isRecorded(path)
    }

    /// ``contains(_:)`` under exactly these bytes, as a link opens a file: `café` with `é`
    /// as one scalar and as `e` + U+0301 are one `String` but two names on disk.
    public func containsExactly(_ path: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return SiteFiles.holds(owners, exactly: path) && !openStreams.contains(path)
    }

    /// The files of this build as they stand now, answering ``SiteFiles/contains(_:)`` as
    /// ``paths`` would, without a set of every path made (10,000 hashed insertions at
    /// 10,000 pages for the few links the link check still resolves).
    public var files: SiteFiles {
        lock.lock(); defer { lock.unlock() }
        return SiteFiles(owners: owners, openStreams: openStreams)
    }

    /// Every file of this build (claimed, not a stream still open).
    public var paths: Set<String> {
        lock.lock(); defer { lock.unlock() }
        return Set(owners.keys.lazy.filter { !self.openStreams.contains($0) })
    }
}

/// A look-up of the files of a build (``OutputTree/files``): a path claimed, and not a
/// stream still open. The same answers as a `Set` of ``OutputTree/paths``.
public struct SiteFiles: Sendable {
    let owners: [String: String]
    let openStreams: Set<String>

    /// Whether `path` is a file of the site under exactly these bytes (a link opens a file
    /// by its bytes: docs/manifest.md, "Links").
    public func contains(_ path: String) -> Bool {
        Self.holds(owners, exactly: path) && !openStreams.contains(path)
    }

    /// Whether a file of the site has a name canonically equivalent to `path` (the same
    /// `String`), whatever its bytes: to say why a link that looks right is dangling.
    public func containsCanonically(_ path: String) -> Bool {
        owners[path] != nil && !openStreams.contains(path)
    }

    /// Whether `table` has the key `path` in the same bytes (its `String` look-up holds
    /// canonically equivalent texts equal).
    static func holds<V>(_ table: [String: V], exactly path: String) -> Bool {
        guard let i = table.index(forKey: path) else { return false }
        return BuildContext.sameBytes(table[i].key, path)
    }

    /// ``holds(_:exactly:)`` for a set.
    static func holds(_ set: Set<String>, exactly path: String) -> Bool {
        guard let i = set.firstIndex(of: path) else { return false }
        return BuildContext.sameBytes(set[i], path)
    }
}
