import CompactBinary
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

/// What the previous build left behind for incremental builds: for every unit, the
/// hash of its inputs and what it produced; every file of the site; and a stamp of every
/// input file so unchanged inputs are not read again. Stored in
/// `.dossier/state-<output>.bin` in the binary form described in
/// docs/output-manifest.md (Foundation's JSON coders took a tenth of a no-change build).
struct BuildState {
    struct Unit {
        var hash: String
        var files: [ManifestFile]
        /// Internal links found on each HTML page of the unit (for the link check).
        var links: [String: [String]]
        /// What the unit left for its section's summary (``UnitResult/record``).
        var record: StoredRecord?
        var warnings: [Diagnostic]
        var pages: Int
        var blurb: String?
        /// Size of the unit's blob (``UnitResult/blob``) stored as
        /// `.dossier/units-<output>/<hash>`, if it left one.
        var blobSize: Int64? = nil
    }

    /// An input file as it was when its SHA-256 was taken. Trusted again only while
    /// size, mtime, ctime, inode and device all match and the file had not changed in
    /// the second before the stamp was taken (a write in the same clock tick as the
    /// stamp could leave every field equal: "racily clean", as git calls it).
    struct InputStamp: Equatable {
        var size: Int64
        var mtime: Int64      // ns since the epoch
        var ctime: Int64      // ns since the epoch
        var inode: UInt64
        var device: UInt64
        var takenAt: Int64    // ns since the epoch
        var sha256: HexDigest

        /// The stamp of `path` now, or nil when it cannot be stat'ed.
        static func current(_ path: String) -> InputStamp? {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            return InputStamp(size: Int64(st.st_size),
                              mtime: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                              ctime: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec),
                              inode: UInt64(st.st_ino), device: UInt64(st.st_dev),
                              takenAt: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), sha256: "")
        }

        /// Whether `self` (from the last build) still describes the file `now` describes.
        func stillValid(_ now: InputStamp) -> Bool {
            size == now.size && mtime == now.mtime && ctime == now.ctime && inode == now.inode && device == now.device
                && max(mtime, ctime) < takenAt - 1_000_000_000
        }
    }

    var dossier: String
    var output: String
    var units: [String: Unit]
    /// Every file of the site this state describes (the manifest's `files`).
    var site: [ManifestFile] = []
    /// Input path (absolute) → its stamp.
    var inputs: [String: InputStamp] = [:]

    static let magic = Array("DOSSIER-STATE\n".utf8)
    static let formatVersion: UInt32 = 2

    static func load(_ url: URL, output: URL) -> BuildState? {
        guard let data = FileManager.default.contents(atPath: url.path),
              let s = decode(data), s.dossier == DossierVersion.string, s.output == output.path else { return nil }
        return s
    }

    /// Writes the state in pieces of about 64 KiB (``encode(pieceSize:_:)``): the whole
    /// encoding (10 MB at 2,000 participants, and a copy of it) was the largest single
    /// allocation at the end of a clean build. (Pieces stay under malloc's mmap threshold,
    /// so each reuses the last one's memory instead of faulting in fresh pages.)
    func save(_ url: URL) throws {
        try AtomicFile.write(to: url, sync: false) { write in
            try encode { piece in try piece.withUnsafeBytes { try write($0) } }
        }
    }

    // MARK: Binary form

    /// The whole encoding at once (tests, and the reference for ``encode(pieceSize:_:)``).
    func encoded() throws -> Data {
        var out = Data()
        try encode { out.append(contentsOf: $0) }
        return out
    }

    /// Hands the encoding to `emit` in consecutive pieces of about `pieceSize` bytes
    /// (a unit or an input stamp is never split); their concatenation is the format in
    /// docs/output-manifest.md. Records kept in the build's spill file are read back
    /// one at a time (``StoredRecord``).
    func encode(pieceSize: Int = 1 << 16, _ emit: ([UInt8]) throws -> Void) throws {
        var w = CompactWriter(capacity: pieceSize + (pieceSize >> 2))
        func flush(_ force: Bool = false) throws {
            guard force || w.bytes.count >= pieceSize else { return }
            try emit(w.bytes)
            w = CompactWriter(capacity: pieceSize + (pieceSize >> 2))
        }
        w.raw(BuildState.magic)
        w.u32(BuildState.formatVersion)
        w.string(dossier)
        w.string(output)
        w.count(units.count)
        for key in units.keys.sorted() {
            let u = units[key]!
            w.string(key)
            w.string(u.hash)
            w.files(u.files)
            w.count(u.links.count)
            for page in u.links.keys.sorted() {
                w.string(page)
                let list = u.links[page]!
                w.count(list.count)
                for l in list { w.string(l) }
            }
            w.data(try u.record?.data())
            w.count(u.warnings.count)
            for d in u.warnings {
                w.string(d.severity.rawValue)
                w.string(d.file)
                w.i64(Int64(d.line ?? -1))
                w.string(d.message)
            }
            w.i64(Int64(u.pages))
            w.string(u.blurb)
            w.optional(u.blobSize) { $0.i64($1) }
            try flush()
        }
        w.count(site.count)
        for f in site {
            w.file(f)
            try flush()
        }
        w.count(inputs.count)
        for path in inputs.keys.sorted() {
            let s = inputs[path]!
            w.string(path)
            w.i64(s.size); w.i64(s.mtime); w.i64(s.ctime)
            w.u64(s.inode); w.u64(s.device); w.i64(s.takenAt)
            w.string(s.sha256.hex)
            try flush()
        }
        w.raw(Array("END\n".utf8))
        try flush(true)
    }

    /// nil for anything that is not a complete state of this format (then the build is
    /// a full one).
    static func decode(_ data: Data) -> BuildState? {
        data.withUnsafeBytes { buf -> BuildState? in
            var r = CompactReader(buf)
            guard r.expect(magic), r.u32() == formatVersion,
                  let dossier = r.string(), let output = r.string(), let n = r.count() else { return nil }
            var units: [String: Unit] = [:]
            units.reserveCapacity(n)
            for _ in 0..<n {
                guard let key = r.string(), let hash = r.string(), let files = r.files(), let nl = r.count() else {
                    return nil
                }
                var links: [String: [String]] = [:]
                for _ in 0..<nl {
                    guard let page = r.string(), let nk = r.count() else { return nil }
                    var list: [String] = []
                    list.reserveCapacity(nk)
                    for _ in 0..<nk { guard let l = r.string() else { return nil }; list.append(l) }
                    links[page] = list
                }
                guard let record = r.optionalData(), let nw = r.count() else { return nil }
                var warnings: [Diagnostic] = []
                for _ in 0..<nw {
                    guard let sev = r.string().flatMap(Diagnostic.Severity.init(rawValue:)),
                        let file = r.optionalString(),
                          let line = r.i64(), let message = r.string() else { return nil }
                    warnings.append(Diagnostic(sev, file: file, line: line < 0 ? nil : Int(line), message))
                }
                guard let pages = r.i64(), let blurb = r.optionalString(),
                      let blobSize = r.optional({ $0.i64() }) else { return nil }
                units[key] = Unit(
                    hash: hash, files: files, links: links, record: record.map(StoredRecord.inMemory),
                    warnings: warnings,
                    pages: Int(pages), blurb: blurb, blobSize: blobSize)
            }
            guard let site = r.files(), let ni = r.count() else { return nil }
            var inputs: [String: InputStamp] = [:]
            for _ in 0..<ni {
                guard let path = r.string(), let size = r.i64(), let mtime = r.i64(), let ctime = r.i64(),
                    let inode = r.u64(), let device = r.u64(), let taken = r.i64(), let sha = r.string()
                else { return nil }
                inputs[path] = InputStamp(size: size, mtime: mtime, ctime: ctime, inode: inode, device: device,
                                          takenAt: taken, sha256: HexDigest(sha))
            }
            guard r.expect(Array("END\n".utf8)), r.atEnd else { return nil }
            return BuildState(dossier: dossier, output: output, units: units, site: site, inputs: inputs)
        }
    }
}

// MARK: - Records out of memory

/// A unit's record: in memory (from a loaded state, or given so), or in the build's
/// ``RecordSpill`` (every unit built in this build).
enum StoredRecord: @unchecked Sendable {
    case inMemory(Data)
    case spilled(RecordSpill, offset: Int64, count: Int)

    /// The record's bytes (read back from the spill file if it is there).
    func data() throws -> Data {
        switch self {
        case .inMemory(let d): d
        case .spilled(let spill, let offset, let count): try spill.read(at: offset, count: count)
        }
    }
}

/// The records of the units built in one build, kept in an unlinked temporary file from
/// when each unit finishes until the summary has read them and the state is written.
/// Held in memory they were the largest part of a clean build's peak that grows with the
/// study (3.5 KB a participant: 7 MB at 2,000; docs/incremental.md, round six). The file
/// is unlinked as soon as it is made, so a build that is stopped leaves nothing behind.
final class RecordSpill: @unchecked Sendable {
    private let fd: Int32
    private var end: Int64 = 0
    private let lock = PlainLock()

    /// A new spill file in `folder` (on the site's file system: beside the staging folder).
    init(in folder: URL) throws {
        var name = Array((folder.path + "/.dossier-records-XXXXXX").utf8CString)
        fd = name.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw DossierError(file: folder.path, "cannot create a temporary file: \(String(cString: strerror(errno)))")
        }
        _ = name.withUnsafeBufferPointer { unlink($0.baseAddress!) }
    }

    deinit { close(fd) }

    /// Appends `data` (any thread) and returns where it is.
    func keep(_ data: Data) throws -> StoredRecord {
        lock.lock()
        let at = end
        end += Int64(data.count)
        lock.unlock()
        try data.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                let n = pwrite(fd, b.baseAddress! + done, b.count - done, off_t(at) + off_t(done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw DossierError(
                        "cannot write a unit's record to the build's temporary file: "
                            + "\(String(cString: strerror(errno)))"
                    )
                }
                done += n
            }
        }
        return .spilled(self, offset: at, count: data.count)
    }

    func read(at offset: Int64, count: Int) throws -> Data {
        var out = Data(count: count)
        try out.withUnsafeMutableBytes { b in
            var done = 0
            while done < count {
                let n = pread(fd, b.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw DossierError("cannot read a unit's record back from the build's temporary file")
                }
                done += n
            }
        }
        return out
    }
}

/// A file as `path, sha256, size` (see docs/output-manifest.md).
private extension CompactWriter {
    mutating func files(_ files: [ManifestFile]) {
        count(files.count)
        for f in files { file(f) }
    }

    mutating func file(_ f: ManifestFile) { string(f.path); string(f.sha256); i64(f.size) }
}

private extension CompactReader {
    mutating func files() -> [ManifestFile]? {
        guard let n = count() else { return nil }
        var out: [ManifestFile] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            guard let p = string(), let s = string(), let z = i64() else { return nil }
            out.append(ManifestFile(path: p, sha256: s, size: z))
        }
        return out
    }
}
