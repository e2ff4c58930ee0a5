#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a zip held in memory, refusing hostile ones before anything is unpacked
/// (docs/archive.md, "Reading a zip"): names that leave the folder, entries that
/// overlap or run into the central directory, sizes over the limits, a compressed
/// size too small for the size it claims, encryption, methods other than stored and
/// deflate; every entry's CRC-32 is checked when it is read.
public struct ZipReader {
    public struct Entry: Sendable {
        /// The name as stored (a relative path; folders end in `/`).
        public var name: String
        public var method: UInt16
        public var crc: UInt32
        public var compressedSize: UInt64
        public var size: UInt64
        var headerOffset: UInt64
        var dataOffset: UInt64
        public var isFolder: Bool { name.hasSuffix("/") }
    }

    public struct Limits: Sendable {
        /// Largest size of one entry once unpacked.
        public var entrySize: UInt64 = 1 << 32
        /// Largest total of all entries once unpacked.
        public var totalSize: UInt64 = 1 << 34
        /// Most entries.
        public var entries = 1_000_000
        /// Largest size ÷ compressed size of an entry: deflate cannot exceed 1,032, so a
        /// larger claim is a lie.
        public var ratio: UInt64 = 1_100
        public init() {}
    }

    public let entries: [Entry]
    private let bytes: [UInt8]

    public init(_ data: [UInt8], limits: Limits = Limits()) throws {
        bytes = data
        entries = try data.withUnsafeBytes { try ZipReader.directory($0, limits: limits) }
    }

    public subscript(name: String) -> Entry? { entries.first { $0.name == name } }

    /// The unpacked contents of `entry`, its CRC-32 checked.
    public func contents(of entry: Entry) throws -> [UInt8] {
        try bytes.withUnsafeBytes { raw in
            let data = UnsafeRawBufferPointer(
                rebasing: raw[Int(entry.dataOffset)..<Int(entry.dataOffset + entry.compressedSize)])
            let out: [UInt8]
            do {
                if entry.method == 0 {
                    out = Array(data)
                } else {
                    out = try RawDeflate.expand(data, size: Int(entry.size))
                }
            } catch let e as ZipError {
                throw ZipError("entry '\(entry.name)': \(e.description)")
            }
            guard out.withUnsafeBytes({ RawDeflate.crc($0) }) == entry.crc else {
                throw ZipError("entry '\(entry.name)': CRC-32 does not match (damaged)")
            }
            return out
        }
    }

    /// Whether `name` is a safe relative path: not empty, not absolute, no `\`, NUL,
    /// drive letter (a first part whose second character is `:`), `.` or `..` part, no
    /// empty part but a folder's final `/`.
    public static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\0") else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        for (i, p) in parts.enumerated() {
            if p.isEmpty && i != parts.count - 1 { return false }
            if p == "." || p == ".." { return false }
        }
        if parts.count == 1 && name.hasSuffix("/") { return false }
        // A drive letter (`C:` starting the first part).
        if let first = parts.first, first.count >= 2, first.dropFirst().first == ":" { return false }
        return true
    }

    private static func directory(_ raw: UnsafeRawBufferPointer, limits: Limits) throws -> [Entry] {
        // The end record: the last signature whose comment reaches the end exactly.
        var endAt = -1
        var at = raw.count - 22
        while at >= max(0, raw.count - 22 - 0xFFFF) {
            var r = LittleEndianIn(raw, at: at)
            if try r.u32() == ZipMark.end {
                r.at = at + 20
                if try at + 22 + Int(r.u16()) == raw.count { endAt = at; break }
            }
            at -= 1
        }
        guard endAt >= 0 else { throw ZipError("not a zip (no end-of-central-directory record)") }
        var end = LittleEndianIn(raw, at: endAt + 4)
        let disk = try end.u16(), cdDisk = try end.u16()
        _ = try end.u16()
        var count = UInt64(try end.u16())
        var cdSize = UInt64(try end.u32())
        var cdStart = UInt64(try end.u32())
        guard disk == 0, cdDisk == 0 else { throw ZipError("a zip split over several files is not read") }
        var cdLimit = UInt64(endAt)
        var locator = LittleEndianIn(raw, at: endAt - 20)
        if endAt >= 20, try locator.u32() == ZipMark.locator64 {
            var loc = LittleEndianIn(raw, at: endAt - 12)   // after the signature and the disk
            let at64 = try loc.u64()
            guard at64 <= UInt64(endAt - 20) else { throw ZipError("the ZIP64 end record is out of place") }
            var e64 = LittleEndianIn(raw, at: Int(at64))
            guard try e64.u32() == ZipMark.end64 else { throw ZipError("the ZIP64 end record is missing") }
            e64.at += 20
            count = try e64.u64()
            guard try e64.u64() == count else { throw ZipError("the ZIP64 end record's counts disagree") }
            cdSize = try e64.u64()
            cdStart = try e64.u64()
            cdLimit = at64
        }
        guard count <= UInt64(limits.entries) else { throw ZipError("more than \(limits.entries) entries") }
        guard cdStart <= cdLimit, cdSize <= cdLimit - cdStart else {
            throw ZipError("the central directory is out of place (damaged or cut short)")
        }
        var r = LittleEndianIn(raw, at: Int(cdStart))
        var entries: [Entry] = []
        var names = Set<String>()
        var total: UInt64 = 0
        for _ in 0..<count {
            let e = try centralEntry(&r, raw: raw, dataLimit: cdStart)
            guard isSafe(e.name) else {
                throw ZipError("entry '\(e.name)': its path leaves the folder or is not a path")
            }
            guard names.insert(e.name).inserted else { throw ZipError("entry '\(e.name)' appears twice") }
            guard e.size <= limits.entrySize else {
                throw ZipError("entry '\(e.name)': \(e.size) bytes unpacked, over the limit of \(limits.entrySize)")
            }
            total += e.size
            guard total <= limits.totalSize else {
                throw ZipError("the entries unpack to more than \(limits.totalSize) bytes")
            }
            if e.method == 0, e.size != e.compressedSize {
                throw ZipError("entry '\(e.name)': stored, yet its two sizes differ")
            }
            guard e.size <= max(e.compressedSize, 1) * limits.ratio else {
                throw ZipError("entry '\(e.name)': claims \(e.size) bytes from \(e.compressedSize) (a zip bomb?)")
            }
            entries.append(e)
        }
        guard r.at <= Int(cdStart + cdSize) else { throw ZipError("the central directory is longer than stated") }
        // No two entries share bytes (the overlapping-entry zip bomb).
        var reach: UInt64 = 0
        for e in entries.sorted(by: { $0.headerOffset < $1.headerOffset }) {
            guard e.headerOffset >= reach else { throw ZipError("entry '\(e.name)' overlaps another entry") }
            reach = e.dataOffset + e.compressedSize
        }
        return entries
    }

    private static func centralEntry(
        _ r: inout LittleEndianIn, raw: UnsafeRawBufferPointer, dataLimit: UInt64
    ) throws -> Entry {
        guard try r.u32() == ZipMark.central else { throw ZipError("the central directory is damaged") }
        r.at += 4
        let flags = try r.u16(), method = try r.u16()
        r.at += 4
        let crc = try r.u32()
        var compressed = UInt64(try r.u32()), size = UInt64(try r.u32())
        let nameLength = Int(try r.u16()), extraLength = Int(try r.u16()), commentLength = Int(try r.u16())
        r.at += 8
        var offset = UInt64(try r.u32())
        let nameBytes = try r.take(nameLength)
        guard let name = String(validating: Array(nameBytes), as: UTF8.self) else {
            throw ZipError("an entry's name is not UTF-8")
        }
        var extra = LittleEndianIn(try r.take(extraLength), at: 0)
        _ = try r.take(commentLength)
        while extra.has(4) {
            let id = try extra.u16(), length = Int(try extra.u16())
            var field = LittleEndianIn(try extra.take(length), at: 0)
            guard id == ZipMark.zip64ExtraID else { continue }
            if size == UInt64(ZipMark.inExtra32) { size = try field.u64() }
            if compressed == UInt64(ZipMark.inExtra32) { compressed = try field.u64() }
            if offset == UInt64(ZipMark.inExtra32) { offset = try field.u64() }
        }
        guard flags & 1 == 0 else { throw ZipError("entry '\(name)' is encrypted") }
        guard method == 0 || method == 8 else {
            throw ZipError("entry '\(name)' uses compression method \(method) (only stored and deflate are read)")
        }
        // The local header: same signature, its own name and extra lengths.
        guard offset <= dataLimit, dataLimit - offset >= 30 else {
            throw ZipError("entry '\(name)': its data is out of place")
        }
        var local = LittleEndianIn(raw, at: Int(offset))
        guard try local.u32() == ZipMark.local else { throw ZipError("entry '\(name)': its local header is missing") }
        local.at = Int(offset) + 26
        let skip = UInt64(try local.u16()) + UInt64(try local.u16())
        let dataOffset = offset + 30 + skip
        guard dataOffset <= dataLimit, compressed <= dataLimit - dataOffset else {
            throw ZipError("entry '\(name)': its data runs into the central directory (damaged or cut short)")
        }
        return Entry(
            name: name, method: method, crc: crc, compressedSize: compressed, size: size, headerOffset: offset,
            dataOffset: dataOffset)
    }
}
