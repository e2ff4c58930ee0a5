import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// An offline copy of Have I Been Pwned's Pwned Passwords (docs/vault-report.md,
/// "Breached"): nothing ever leaves the machine.
///
/// - **File**: lines `HASH:COUNT` (40 upper- or lower-case hex digits of SHA-1, a colon,
///   a decimal count), ordered by hash, LF or CRLF — what HIBP's downloader writes as one
///   file. Searched by binary search over byte offsets with `pread`, a 4 KiB page at a
///   time: about log₂(size / 4 KiB) + 2 pages per lookup, never the whole file.
/// - **Range folder**: files named by the 5-hex-digit hash prefix (`21BD1` or
///   `21BD1.txt`, any case of digits and extension), lines `SUFFIX:COUNT` with the other 35
///   digits — the k-anonymity API's answer saved per prefix. One small file read per lookup.
public final class BreachList: @unchecked Sendable {
    private enum Source { case file(Int32, Int64), folder(URL, [String: String]) }
    private let source: Source
    /// The list's path, named in errors.
    private let path: String
    private let lock = PlainLock()
    /// Pages (4 KiB reads) done so far — the cost the acceptance test reports.
    public private(set) var pagesRead = 0
    /// Lookups done so far, and the time they took.
    public private(set) var lookups = 0
    public private(set) var lookupTime = Duration.zero
    static let page = 4096
    /// Which of the accepted forms the list is (``BreachListForm``), said on the report.
    public let form: BreachListForm

    /// Opens a sorted `HASH:COUNT` file or a range folder, refusing any other form.
    public init(url: URL) throws {
        var isDir = false
        path = url.path
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else {
            throw VaultError(.io, "the Pwned Passwords file does not exist", file: url.path)
        }
        if isDir {
            let (form, names) = try BreachListForm.ofFolder(url)
            self.form = form
            source = .folder(url, names)
        } else {
            let fd = open(url.path, O_RDONLY)
            guard fd >= 0 else { throw VaultError(.io, "cannot open the Pwned Passwords file", file: url.path) }
            let size = Int64(lseek(fd, 0, SEEK_END))
            do { form = try BreachListForm.ofFile(fd: fd, size: size, path: url.path) } catch { close(fd); throw error }
            source = .file(fd, size)
        }
    }

    deinit { if case .file(let fd, _) = source { close(fd) } }

    /// How often `password` appears in the list (0 when it does not).
    public func count(password: Secret) throws -> Int {
        let hex = Insecure.SHA1.hash(data: Data(password.reveal.utf8)).upperHexString
        return try count(sha1Hex: hex)
    }

    /// How often the SHA-1 (40 hex digits, any case) appears.
    public func count(sha1Hex: String) throws -> Int {
        let key = Array(sha1Hex.uppercased().utf8)
        guard key.count == 40 else { return 0 }
        lock.lock(); defer { lock.unlock() }
        lookups += 1
        let t0 = ContinuousClock.now
        defer { lookupTime += ContinuousClock.now - t0 }
        switch source {
        case .folder(let dir, let names): return try lookUp(folder: dir, names: names, key: key)
        case .file(let fd, let size): return try lookUp(fd: fd, size: size, key: key)
        }
    }

    // MARK: Range folder

    /// `names` maps each upper-case 5-digit prefix to the file's name as it is on disk
    /// (`21BD1`, `21bd1.txt`, `21Bd1.TXT`: the folder's listing, read once when opened).
    private func lookUp(folder: URL, names: [String: String], key: [UInt8]) throws -> Int {
        guard let name = names[String(decoding: key.prefix(5), as: UTF8.self)] else { return 0 }
        let file = folder.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw VaultError(.io, "cannot read the Pwned Passwords range file", file: file.path)
        }
        pagesRead += (data.count + Self.page - 1) / Self.page
        try BreachListForm.checkRangeFile(Array(data), file: file.path)
        let suffix = Array(key.dropFirst(5))
        for line in data.split(separator: 10) {
            let fields = Array(line.prefix { $0 != 58 })   // up to ':'
            if fields.count == 35, upper(fields) == suffix {
                return Self.number(line.dropFirst(36))
            }
        }
        return 0
    }

    // MARK: Sorted file

    /// Binary search on byte offsets: `lo` is always at a line start whose hash is < key
    /// (or 0); each probe reads the first whole line starting at or after `mid`.
    private func lookUp(fd: Int32, size: Int64, key: [UInt8]) throws -> Int {
        var lo: Int64 = 0, hi = size
        while hi - lo > Int64(Self.page) {
            let mid = lo + (hi - lo) / 2
            guard let (start, line) = try line(fd: fd, size: size, from: mid, exact: false) else { hi = mid; continue }
            try check(line[...], fd: fd, at: start)
            let h = upper(Array(line.prefix(40)))
            if h == key { return Self.number(line.dropFirst(41)) }
            if h.lexicographicallyPrecedes(key) { lo = start } else { hi = mid }
        }
        // the key's line starts in [lo, hi): read that stretch (plus one line) at once
        let length = Int(min(size, hi + 256) - lo)
        var buf = [UInt8](repeating: 0, count: length)
        let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(lo)) }
        guard n >= 0 else { throw VaultError(.io, "cannot read the Pwned Passwords file", file: path) }
        pagesRead += (n + Self.page - 1) / Self.page
        var lines = buf[..<n].split(separator: 10, omittingEmptySubsequences: false)
        if lo + Int64(n) < size { lines.removeLast() }     // a line cut by the read
        for raw in lines where !raw.isEmpty {
            try check(raw, fd: fd, at: lo + Int64(raw.startIndex))
            let h = upper(Array(raw.prefix(40)))
            if h == key { return Self.number(raw.dropFirst(41)) }
            if key.lexicographicallyPrecedes(h) { return 0 }
        }
        return 0
    }

    /// The line starting at `from` (`exact`) or at the first line start after `from − 1`,
    /// with its start offset; nil at the end of the file.
    private func line(fd: Int32, size: Int64, from: Int64, exact: Bool) throws -> (Int64, [UInt8])? {
        var buf = [UInt8](repeating: 0, count: Self.page)
        var pos = from
        var start: Int64? = exact || from == 0 ? from : nil
        var line: [UInt8] = []
        while pos < size {
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Self.page, off_t(pos)) }
            guard n > 0 else { throw VaultError(.io, "cannot read the Pwned Passwords file", file: path) }
            pagesRead += 1
            for i in 0..<n {
                let b = buf[i]
                if start == nil {
                    if b == 10 { start = pos + Int64(i) + 1 }
                    continue
                }
                if b == 10 { return (start!, line.last == 13 ? Array(line.dropLast()) : line) }
                line.append(b)
                if line.count > BreachListForm.maxLine + 1 { try check(line[...], fd: fd, at: start!) }
            }
            pos += Int64(n)
        }
        guard let start, !line.isEmpty else { return nil }
        return (start, line.last == 13 ? Array(line.dropLast()) : line)
    }

    /// Throws, naming the file and line, when a line read by a lookup is not `HASH:COUNT`
    /// within the limits (docs/vault-report.md, "Breached, offline").
    private func check(_ line: ArraySlice<UInt8>, fd: Int32, at offset: Int64) throws {
        guard let problem = BreachListForm.problem(line, digits: 40) else { return }
        let n = try BreachListForm.lineNumber(fd: fd, offset: offset, path: path)
        throw VaultError(.invalidInput, "the Pwned Passwords list's line \(n) \(problem)", file: path, line: n)
    }

    private func upper(_ b: [UInt8]) -> [UInt8] { b.map { (97...102).contains($0) ? $0 - 32 : $0 } }

    /// The count of a checked line (at most 2⁶³ − 1, ``BreachListForm/problem(_:digits:)``);
    /// a count of 0 is read as 1 (the hash is in the list).
    static func number<S: Sequence>(_ digits: S) -> Int where S.Element == UInt8 {
        var n = 0
        for d in digits {
            guard (48...57).contains(d) else { break }
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(d - 48))
            guard !o1, !o2 else { return Int.max }
            n = sum
        }
        return max(n, 1)
    }
}
