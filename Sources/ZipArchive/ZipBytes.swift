#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is wrong with a zip, or why one could not be written: one sentence, naming the
/// entry when there is one.
public struct ZipError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The record signatures and markers of the zip format (APPNOTE.TXT 6.3.10), as the
/// reader and writer use them (docs/archive.md, "The zip's bytes").
enum ZipMark {
    static let local: UInt32 = 0x0403_4B50
    static let central: UInt32 = 0x0201_4B50
    static let end: UInt32 = 0x0605_4B50
    static let end64: UInt32 = 0x0606_4B50
    static let locator64: UInt32 = 0x0706_4B50
    /// A 32-bit size or offset that is in the ZIP64 extra field instead.
    static let inExtra32: UInt32 = 0xFFFF_FFFF
    static let inExtra16: UInt16 = 0xFFFF
    static let zip64ExtraID: UInt16 = 0x0001
    /// General-purpose flag bit 11: names are UTF-8.
    static let utf8Names: UInt16 = 0x0800
}

/// Little-endian fields appended to a byte array.
struct LittleEndianOut {
    var bytes: [UInt8] = []
    mutating func u16(_ v: UInt16) { bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8(v >> 8)) }
    mutating func u32(_ v: UInt32) {
        for s in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((v >> UInt32(s)) & 0xFF)) }
    }
    mutating func u64(_ v: UInt64) {
        for s in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((v >> UInt64(s)) & 0xFF)) }
    }
    mutating func append<S: Sequence>(_ s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }
}

/// Little-endian fields read from a byte buffer; every read is bounds-checked.
struct LittleEndianIn {
    let bytes: UnsafeRawBufferPointer
    var at: Int
    init(_ bytes: UnsafeRawBufferPointer, at: Int) {
        self.bytes = bytes
        self.at = at
    }
    func has(_ n: Int) -> Bool { at >= 0 && n >= 0 && at <= bytes.count - n }
    mutating func u16() throws -> UInt16 {
        guard has(2) else { throw ZipError("cut short (a record runs past the end of the file)") }
        defer { at += 2 }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }
    mutating func u32() throws -> UInt32 {
        let lo = try u16()
        return UInt32(lo) | UInt32(try u16()) << 16
    }
    mutating func u64() throws -> UInt64 {
        let lo = try u32()
        return UInt64(lo) | UInt64(try u32()) << 32
    }
    mutating func take(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard has(n) else { throw ZipError("cut short (a record runs past the end of the file)") }
        defer { at += n }
        return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + n)])
    }
}

/// An MS-DOS date field (bits 15–9 year − 1980, 8–5 month, 4–0 day) for `yyyy-mm-dd`;
/// 1980-01-01 for anything else or out of the field's range.
public func dosDate(_ day: String) -> UInt16 {
    let parts = day.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3, (1980...2107).contains(parts[0]), (1...12).contains(parts[1]),
        (1...31).contains(parts[2])
    else { return 0x0021 }
    return UInt16((parts[0] - 1980) << 9 | parts[1] << 5 | parts[2])
}
