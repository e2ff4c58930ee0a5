#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Strict UTF-8 for every text input (docs/recall-events.md, "Text encoding"; docs/json-lines.md)

/// Finds bytes that are not UTF-8, so a reader can name the line instead of silently
/// turning them into U+FFFD.
public enum UTF8Check {
    /// The offset (relative to `from`) of the first byte of `p[from..<to]` that does not
    /// start a valid UTF-8 sequence (overlong forms, surrogates and code points above
    /// U+10FFFF are invalid, as in RFC 3629), or `nil` when the range is valid.
    public static func firstInvalid(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        var i = from
        while i < to {
            // ASCII eight bytes at a time (nearly every byte of a log).
            while i + 8 <= to,
                  UnsafeRawPointer(p.baseAddress! + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < to else { break }
            let b = p[i]
            if b < 0x80 { i += 1; continue }
            let n: Int, lo: UInt8, hi: UInt8
            switch b {
            case 0xC2...0xDF: n = 1; lo = 0x80; hi = 0xBF
            case 0xE0: n = 2; lo = 0xA0; hi = 0xBF
            case 0xE1...0xEC, 0xEE, 0xEF: n = 2; lo = 0x80; hi = 0xBF
            case 0xED: n = 2; lo = 0x80; hi = 0x9F
            case 0xF0: n = 3; lo = 0x90; hi = 0xBF
            case 0xF1...0xF3: n = 3; lo = 0x80; hi = 0xBF
            case 0xF4: n = 3; lo = 0x80; hi = 0x8F
            default: return i - from
            }
            guard i + n < to, (lo...hi).contains(p[i + 1]) else { return i - from }
            if n >= 2, !(0x80...0xBF).contains(p[i + 2]) { return i - from }
            if n == 3, !(0x80...0xBF).contains(p[i + 3]) { return i - from }
            i += n + 1
        }
        return nil
    }

    /// The message for a byte that is not UTF-8 (1-based byte column).
    public static func notUTF8(byte: UInt8, column: Int) -> String {
        "byte \(column) of the line (0x\(String(byte, radix: 16, uppercase: true))) is not UTF-8; save the file as "
            + "UTF-8"
    }

    /// The first line of `data` (LF-separated, 1-based) holding a byte that is not UTF-8:
    /// its line, the byte's 1-based column in bytes within the line, and the byte; nil when
    /// the whole is UTF-8.
    public static func firstBadLine(_ data: Data) -> (line: Int, column: Int, byte: UInt8)? {
        data.withUnsafeBytes { raw -> (line: Int, column: Int, byte: UInt8)? in
            let p = raw.bindMemory(to: UInt8.self)
            var line = 1, start = 0
            while start <= p.count {
                var stop = start
                while stop < p.count, p[stop] != 0x0A { stop += 1 }
                if let bad = firstInvalid(p, from: start, to: stop) { return (line, bad + 1, p[start + bad]) }
                line += 1
                start = stop + 1
            }
            return nil
        }
    }

    /// `file:line: byte N of the line (0xXX) is not UTF-8; save the file as UTF-8`, when
    /// `data` holds such a byte.
    public static func problem(_ data: Data) -> (line: Int, message: String)? {
        firstBadLine(data).map { ($0.line, notUTF8(byte: $0.byte, column: $0.column)) }
    }
}
