import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        var record: Data?
        var warnings: [Diagnostic]
        var pages: Int
        var blurb: String?
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
        var sha256: String

        /// The stamp of `path` now, or nil when it cannot be stat'ed.
        static func current(_ path: String, sha256: String = "") -> InputStamp? {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            return InputStamp(size: Int64(st.st_size),
                              mtime: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                              ctime: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec),
                              inode: UInt64(st.st_ino), device: UInt64(st.st_dev),
                              takenAt: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), sha256: sha256)
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
    static let formatVersion: UInt32 = 1

    static func load(_ url: URL, output: URL) -> BuildState? {
        guard let data = FileManager.default.contents(atPath: url.path),
              let s = decode(data), s.dossier == DossierVersion.string, s.output == output.path else { return nil }
        return s
    }

    func save(_ url: URL) throws {
        try AtomicFile.write(encoded(), to: url, sync: false)
    }

    // MARK: Binary form

    func encoded() -> Data {
        var w = StateWriter()
        w.bytes(BuildState.magic)
        w.u32(BuildState.formatVersion)
        w.string(dossier)
        w.string(output)
        w.u32(UInt32(units.count))
        for key in units.keys.sorted() {
            let u = units[key]!
            w.string(key)
            w.string(u.hash)
            w.files(u.files)
            w.u32(UInt32(u.links.count))
            for page in u.links.keys.sorted() {
                w.string(page)
                w.strings(u.links[page]!)
            }
            w.optionalData(u.record)
            w.u32(UInt32(u.warnings.count))
            for d in u.warnings {
                w.string(d.severity.rawValue)
                w.optionalString(d.file)
                w.i64(Int64(d.line ?? -1))
                w.string(d.message)
            }
            w.i64(Int64(u.pages))
            w.optionalString(u.blurb)
        }
        w.files(site)
        w.u32(UInt32(inputs.count))
        for path in inputs.keys.sorted() {
            let s = inputs[path]!
            w.string(path)
            w.i64(s.size); w.i64(s.mtime); w.i64(s.ctime)
            w.u64(s.inode); w.u64(s.device); w.i64(s.takenAt)
            w.string(s.sha256)
        }
        w.bytes(Array("END\n".utf8))
        return Data(w.out)
    }

    /// nil for anything that is not a complete state of this format (then the build is
    /// a full one).
    static func decode(_ data: Data) -> BuildState? {
        data.withUnsafeBytes { buf -> BuildState? in
            var r = StateReader(buf: buf)
            guard r.expect(magic), r.u32() == formatVersion,
                  let dossier = r.string(), let output = r.string(), let n = r.u32() else { return nil }
            var units: [String: Unit] = [:]
            units.reserveCapacity(Int(n))
            for _ in 0..<n {
                guard let key = r.string(), let hash = r.string(), let files = r.files(), let nl = r.u32() else { return nil }
                var links: [String: [String]] = [:]
                for _ in 0..<nl {
                    guard let page = r.string(), let l = r.strings() else { return nil }
                    links[page] = l
                }
                guard let record = r.optionalData(), let nw = r.u32() else { return nil }
                var warnings: [Diagnostic] = []
                for _ in 0..<nw {
                    guard let sev = r.string().flatMap(Diagnostic.Severity.init(rawValue:)), let file = r.optionalString(),
                          let line = r.i64(), let message = r.string() else { return nil }
                    warnings.append(Diagnostic(sev, file: file, line: line < 0 ? nil : Int(line), message))
                }
                guard let pages = r.i64(), let blurb = r.optionalString() else { return nil }
                units[key] = Unit(hash: hash, files: files, links: links, record: record, warnings: warnings,
                                  pages: Int(pages), blurb: blurb)
            }
            guard let site = r.files(), let ni = r.u32() else { return nil }
            var inputs: [String: InputStamp] = [:]
            for _ in 0..<ni {
                guard let path = r.string(), let size = r.i64(), let mtime = r.i64(), let ctime = r.i64(),
                      let inode = r.u64(), let device = r.u64(), let taken = r.i64(), let sha = r.string() else { return nil }
                inputs[path] = InputStamp(size: size, mtime: mtime, ctime: ctime, inode: inode, device: device,
                                          takenAt: taken, sha256: sha)
            }
            guard r.expect(Array("END\n".utf8)), r.atEnd else { return nil }
            return BuildState(dossier: dossier, output: output, units: units, site: site, inputs: inputs)
        }
    }
}

/// Little-endian integers; strings and data as a u32 byte count and the bytes; an
/// optional as a 0/1 byte and, if 1, the value.
private struct StateWriter {
    var out: [UInt8] = []
    init() { out.reserveCapacity(1 << 20) }
    mutating func bytes(_ b: [UInt8]) { out.append(contentsOf: b) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u32(UInt32($0.count)); out.append(contentsOf: $0) }
    }
    mutating func strings(_ list: [String]) { u32(UInt32(list.count)); for s in list { string(s) } }
    mutating func optionalString(_ s: String?) {
        if let s { out.append(1); string(s) } else { out.append(0) }
    }
    mutating func optionalData(_ d: Data?) {
        if let d { out.append(1); u32(UInt32(d.count)); out.append(contentsOf: d) } else { out.append(0) }
    }
    mutating func files(_ files: [ManifestFile]) {
        u32(UInt32(files.count))
        for f in files { string(f.path); string(f.sha256); i64(f.size) }
    }
}

/// Reads what ``StateWriter`` wrote; every read is bounds-checked and returns nil past
/// the end.
private struct StateReader {
    let buf: UnsafeRawBufferPointer
    var pos = 0
    var atEnd: Bool { pos == buf.count }

    mutating func take(_ n: Int) -> UnsafeRawBufferPointer? {
        guard n >= 0, buf.count - pos >= n else { return nil }
        defer { pos += n }
        return UnsafeRawBufferPointer(rebasing: buf[pos..<(pos + n)])
    }
    mutating func expect(_ b: [UInt8]) -> Bool { take(b.count).map { $0.elementsEqual(b) } ?? false }
    mutating func u32() -> UInt32? { take(4).map { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) } }
    mutating func u64() -> UInt64? { take(8).map { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } }
    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
    mutating func string() -> String? {
        guard let n = u32(), let b = take(Int(n)) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }
    mutating func strings() -> [String]? {
        guard let n = u32(), Int(n) <= buf.count - pos else { return nil }
        var out: [String] = []
        out.reserveCapacity(Int(n))
        for _ in 0..<n { guard let s = string() else { return nil }; out.append(s) }
        return out
    }
    mutating func flag() -> Bool? {
        guard let b = take(1) else { return nil }
        return b[0] == 1 ? true : (b[0] == 0 ? false : nil)
    }
    mutating func optionalString() -> String?? {
        guard let f = flag() else { return nil }
        if !f { return .some(nil) }
        return string().map { .some($0) }
    }
    mutating func optionalData() -> Data?? {
        guard let f = flag() else { return nil }
        if !f { return .some(nil) }
        guard let n = u32(), let b = take(Int(n)) else { return nil }
        return .some(Data(b))
    }
    mutating func files() -> [ManifestFile]? {
        guard let n = u32(), Int(n) <= buf.count - pos else { return nil }
        var out: [ManifestFile] = []
        out.reserveCapacity(Int(n))
        for _ in 0..<n {
            guard let p = string(), let s = string(), let z = i64() else { return nil }
            out.append(ManifestFile(path: p, sha256: s, size: z))
        }
        return out
    }
}
