#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Recognising the breach list's form

/// The two forms of Have I Been Pwned's Pwned Passwords that ``BreachList`` searches,
/// recognised exactly when the list is opened (docs/vault-report.md, "Breached,
/// offline"): anything else — the list ordered by count, an NTLM list, plain text, an
/// empty folder — is refused, so a wrong list can never give a silent all-clear.
public enum BreachListForm: Sendable, Equatable {
    /// One file of `HASH:COUNT` lines ordered by hash, with its line count.
    case sha1OrderedByHash(lines: Int)
    /// A folder of range files (`21BD1`, `21BD1.txt`), with how many there are.
    case sha1RangeFolder(files: Int)

    /// What the report says about the list used, e.g. `SHA-1 ordered by hash, 1,024 lines`.
    public var summary: String {
        switch self {
        case .sha1OrderedByHash(let n): "SHA-1 ordered by hash, \(Self.grouped(n)) line\(n == 1 ? "" : "s")"
        case .sha1RangeFolder(let n): "SHA-1 range folder, \(Self.grouped(n)) range file\(n == 1 ? "" : "s")"
        }
    }

    static func grouped(_ n: Int) -> String {
        var s = String(n), out = ""
        while s.count > 3 { out = "," + s.suffix(3) + out; s.removeLast(3) }
        return s + out
    }

    /// How many bytes of each end of a file are checked line by line.
    static let checkedBytes = 65_536

    /// The longest line accepted, in bytes without its LF (or CR LF).
    static let maxLine = 256

    /// Checks one line (no LF, a final CR allowed) of `digits` hex digits, `:`, a count of
    /// at most 2⁶³ − 1, at most ``maxLine`` bytes; nil when it is right, else what is wrong.
    static func problem(_ raw: ArraySlice<UInt8>, digits: Int) -> String? {
        let line = raw.last == 13 ? raw.dropLast() : raw
        if line.count > maxLine {
            return "is over \(maxLine) bytes long (\(line.count)): not a \(digits == 40 ? "HASH" : "SUFFIX"):COUNT line"
        }
        let hex = line.prefix { isHex($0) }
        let rest = line.dropFirst(hex.count)
        guard hex.count == digits, rest.first == 58, rest.count > 1,
            rest.dropFirst().allSatisfy({ (48...57).contains($0) })
        else {
            if hex.count == digits - 8, rest.first == 58 {
                return
                    "has \(hex.count) hex digits before ':': an NTLM list, not SHA-1 (use the SHA-1 list ordered by "
                        + "hash)"
            }
            return
                "is not \(digits == 40 ? "HASH" : "SUFFIX"):COUNT (\(digits) hex digits of SHA-1, ':', a decimal count)"
        }
        let count = rest.dropFirst().drop { $0 == 48 }
        let longer = count.count > maxCount.count
        if longer || (count.count == maxCount.count && maxCount.lexicographicallyPrecedes(count)) {
            return "has a count over 9,223,372,036,854,775,807 (2⁶³ − 1): no list counts that many"
        }
        return nil
    }

    /// 2⁶³ − 1 in decimal digits, the largest count accepted.
    static let maxCount = Array(String(Int.max).utf8)

    /// The 1-based number of the line starting at byte `offset` (LF bytes before it, plus
    /// one): read sequentially, only to name a line in an error.
    static func lineNumber(fd: Int32, offset: Int64, path: String) throws -> Int {
        let chunk = 1 << 20
        var buf = [UInt8](repeating: 0, count: chunk)
        var at: Int64 = 0, lines = 1
        while at < offset {
            let want = Int(min(Int64(chunk), offset - at))
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(at)) }
            guard n > 0 else { throw VaultError(.io, "cannot read the Pwned Passwords file", file: path) }
            lines += buf[..<n].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
            at += Int64(n)
        }
        return lines
    }

    static func isHex(_ b: UInt8) -> Bool { (48...57).contains(b) || (65...70).contains(b) || (97...102).contains(b) }
    static func upper(_ b: ArraySlice<UInt8>) -> [UInt8] { b.map { (97...102).contains($0) ? $0 - 32 : $0 } }

    /// Checks the lines (`digits`-digit hashes, strictly ascending) and returns the first
    /// and last hash; `number` gives a line's 1-based number in the file, for messages.
    static func checkLines(_ lines: [ArraySlice<UInt8>], digits: Int, file: String,
                           number: (ArraySlice<UInt8>) throws -> Int) throws -> (first: [UInt8], last: [UInt8])? {
        var previous: [UInt8]? = nil, first: [UInt8]? = nil
        for line in lines {
            if let p = problem(line, digits: digits) {
                let n = try number(line)
                throw VaultError(.invalidInput, "the Pwned Passwords list's line \(n) \(p)", file: file, line: n)
            }
            let h = upper(line.prefix(digits))
            if let previous, !previous.lexicographicallyPrecedes(h) {
                let n = try number(line)
                throw VaultError(
                    .invalidInput,
                    "the Pwned Passwords list's line \(n) is not after the line before it: the list is "
                        + "not ordered by hash (the list ordered by prevalence cannot be searched; use the SHA-1 list "
                        + "ordered by hash)",
                    file: file, line: n)
            }
            previous = h
            if first == nil { first = h }
        }
        return first.map { ($0, previous!) }
    }

    /// Recognises a single-file list: its first and last 64 KiB hold only `HASH:COUNT`
    /// lines in strictly ascending hash order; then every line is counted (one
    /// sequential read, the form's line count).
    static func ofFile(fd: Int32, size: Int64, path: String) throws -> BreachListForm {
        guard size > 0 else { throw VaultError(.invalidInput, "the Pwned Passwords file is empty", file: path) }
        func read(_ offset: Int64, _ length: Int) throws -> [UInt8] {
            var buf = [UInt8](repeating: 0, count: length)
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(offset)) }
            guard n >= 0 else { throw VaultError(.io, "cannot read the Pwned Passwords file", file: path) }
            return Array(buf[..<n])
        }
        let headLength = Int(min(size, Int64(checkedBytes)))
        var head = try read(0, headLength).split(separator: 10, omittingEmptySubsequences: false)
        if Int64(headLength) < size { head.removeLast() }          // a line cut by the window
        if head.last?.isEmpty == true { head.removeLast() }          // the final LF
        let headNumbers = Dictionary(uniqueKeysWithValues: head.enumerated().map { ($1.startIndex, $0 + 1) })
        let headNumber = { (line: ArraySlice<UInt8>) in headNumbers[line.startIndex]! }
        guard let headLast = try checkLines(head, digits: 40, file: path, number: headNumber)?.last else {
            throw VaultError(
                .invalidInput,
                "the Pwned Passwords file's first line is over \(checkedBytes) bytes: not a HASH:COUNT list", file: path
            )
        }
        if Int64(headLength) < size {
            let from = max(Int64(headLength), size - Int64(checkedBytes))
            var tail = try read(from, Int(size - from)).split(separator: 10, omittingEmptySubsequences: false)
            tail.removeFirst()                                         // a line cut by the window
            if tail.last?.isEmpty == true { tail.removeLast() }
            let tailNumber = { (line: ArraySlice<UInt8>) in
                try lineNumber(fd: fd, offset: from + Int64(line.startIndex), path: path)
            }
            if let tailFirst = try checkLines(tail, digits: 40, file: path, number: tailNumber)?.first,
               !headLast.lexicographicallyPrecedes(tailFirst) {
                throw VaultError(
                    .invalidInput,
                    "the Pwned Passwords file's last lines sort before its first: the list is not ordered by hash",
                    file: path)
            }
        }
        return .sha1OrderedByHash(lines: try countLines(fd: fd, size: size, path: path))
    }

    /// LF bytes in the file, plus one when the last line has none.
    static func countLines(fd: Int32, size: Int64, path: String) throws -> Int {
        let chunk = 1 << 20
        var buf = [UInt8](repeating: 0, count: chunk)
        var offset: Int64 = 0, lines = 0, last: UInt8 = 10
        while offset < size {
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, chunk, off_t(offset)) }
            guard n > 0 else { throw VaultError(.io, "cannot read the Pwned Passwords file", file: path) }
            buf.withUnsafeBytes { b in
                var p = b.baseAddress!
                let end = p + n
                while p < end, let hit = memchr(p, 10, p.distance(to: end)) {
                    lines += 1; p = UnsafeRawPointer(hit) + 1
                }
            }
            last = buf[n - 1]
            offset += Int64(n)
        }
        return lines + (last == 10 ? 0 : 1)
    }

    /// A range file's name: 5 hex digits, optionally `.txt`, each letter in either case.
    static func isRangeName(_ name: String) -> Bool { rangePrefix(name) != nil }

    /// The upper-case 5-digit prefix a range file's name stands for (`21bd1.TXT` → `21BD1`).
    static func rangePrefix(_ name: String) -> String? {
        let stem = name.lowercased().hasSuffix(".txt") ? String(name.dropLast(4)) : name
        guard stem.utf8.count == 5, stem.utf8.allSatisfy(isHex) else { return nil }
        return stem.uppercased()
    }

    /// Recognises a range folder: at least one range file, no other file (names starting
    /// with `.` aside), no two files for one prefix, and the first range file (by name)
    /// holds only `SUFFIX:COUNT` lines. Returns the form and each prefix's file name.
    static func ofFolder(_ url: URL) throws -> (BreachListForm, [String: String]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { !$0.hasPrefix(".") }.sorted()
        if let other = names.first(where: { !isRangeName($0) }) {
            throw VaultError(
                .invalidInput,
                "the Pwned Passwords folder holds '\(other)': a range folder holds only files named by 5 hex digits "
                    + "(21BD1 or 21BD1.txt)",
                file: url.path)
        }
        guard let firstName = names.first else {
            throw VaultError(
                .invalidInput,
                "the Pwned Passwords folder holds no range files (files named by 5 hex digits, such as 21BD1 or "
                    + "21BD1.txt)",
                file: url.path)
        }
        var files: [String: String] = [:]
        for name in names {
            let prefix = rangePrefix(name)!
            if let other = files[prefix] {
                throw VaultError(
                    .invalidInput,
                    "the Pwned Passwords folder holds '\(other)' and '\(name)' for one prefix: "
                        + "keep one of them", file: url.path)
            }
            files[prefix] = name
        }
        let file = url.appendingPathComponent(firstName)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw VaultError(.io, "cannot read the Pwned Passwords range file", file: file.path)
        }
        try checkRangeFile(Array(data), file: file.path)
        return (.sha1RangeFolder(files: names.count), files)
    }

    /// Every line of a range file is `SUFFIX:COUNT` (35 hex digits); LF or CRLF.
    static func checkRangeFile(_ bytes: [UInt8], file: String) throws {
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for (k, line) in lines.enumerated() {
            if let p = problem(line, digits: 35) {
                throw VaultError(
                    .invalidInput, "the Pwned Passwords range file's line \(k + 1) \(p)", file: file, line: k + 1)
            }
        }
    }
}
