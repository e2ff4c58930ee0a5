#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The small binary form Dossier keeps its own records in (the build state, participant
/// summaries): little-endian; `int` as i64, `count` as u32, a Double as its IEEE-754
/// bits, a Bool as one byte 0/1, a String or Data as a u32 byte count then the bytes
/// (UTF-8), an Optional as a byte 0 (absent) or 1 followed by the value.
public struct CompactWriter {
    public private(set) var bytes: [UInt8] = []
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    public mutating func raw(_ b: [UInt8]) { bytes.append(contentsOf: b) }
    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }
    public mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func count(_ n: Int) { u32(UInt32(n)) }
    public mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    public mutating func int(_ v: Int) { i64(Int64(v)) }
    public mutating func double(_ v: Double) { u64(v.bitPattern) }
    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { count($0.count); bytes.append(contentsOf: $0) }
    }
    public mutating func data(_ d: Data) { count(d.count); bytes.append(contentsOf: d) }

    public mutating func optional<T>(_ v: T?, _ write: (inout CompactWriter, T) -> Void) {
        if let v { bytes.append(1); write(&self, v) } else { bytes.append(0) }
    }
    public mutating func int(_ v: Int?) { optional(v) { $0.int($1) } }
    public mutating func double(_ v: Double?) { optional(v) { $0.double($1) } }
    public mutating func string(_ v: String?) { optional(v) { $0.string($1) } }
    public mutating func data(_ v: Data?) { optional(v) { $0.data($1) } }
}

/// Reads what ``CompactWriter`` wrote. Every read is bounds-checked and returns nil
/// past the end or on a malformed value (an optional's flag other than 0/1, a count
/// larger than what is left), so damaged input is refused, never misread.
public struct CompactReader {
    let buf: UnsafeRawBufferPointer
    public private(set) var position = 0
    public init(_ buf: UnsafeRawBufferPointer) { self.buf = buf }
    public var atEnd: Bool { position == buf.count }

    public mutating func take(_ n: Int) -> UnsafeRawBufferPointer? {
        guard n >= 0, buf.count - position >= n else { return nil }
        defer { position += n }
        return UnsafeRawBufferPointer(rebasing: buf[position..<(position + n)])
    }
    public mutating func expect(_ b: [UInt8]) -> Bool { take(b.count).map { $0.elementsEqual(b) } ?? false }
    public mutating func u8() -> UInt8? { take(1)?[0] }
    public mutating func bool() -> Bool? { u8().flatMap { $0 == 1 ? true : ($0 == 0 ? false : nil) } }
    public mutating func u32() -> UInt32? { take(4).map { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) } }
    /// A u32 count, refused when larger than the bytes left (each element takes ≥ 1).
    public mutating func count() -> Int? {
        guard let n = u32().map(Int.init), n <= buf.count - position else { return nil }
        return n
    }
    public mutating func u64() -> UInt64? { take(8).map { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } }
    public mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
    public mutating func int() -> Int? { i64().map { Int($0) } }
    public mutating func double() -> Double? { u64().map { Double(bitPattern: $0) } }
    public mutating func string() -> String? {
        guard let n = count(), let b = take(n) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }
    public mutating func data() -> Data? {
        guard let n = count(), let b = take(n) else { return nil }
        return Data(b)
    }

    /// `.some(nil)` for an absent value, nil when unreadable.
    public mutating func optional<T>(_ read: (inout CompactReader) -> T?) -> T?? {
        guard let present = bool() else { return nil }
        guard present else { return .some(nil) }
        return read(&self).map { .some($0) }
    }
    public mutating func optionalInt() -> Int?? { optional { $0.int() } }
    public mutating func optionalDouble() -> Double?? { optional { $0.double() } }
    public mutating func optionalString() -> String?? { optional { $0.string() } }
    public mutating func optionalData() -> Data?? { optional { $0.data() } }
}
