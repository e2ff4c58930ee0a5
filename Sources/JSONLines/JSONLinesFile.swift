#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Lines of a JSON Lines file (docs/json-lines.md, "Lines")

/// How a JSON Lines file is cut into lines, shared by every JSON Lines reader: a line
/// ends at LF (a CR just before it is not part of it), and a line of only spaces and
/// tabs holds no record.
public enum JSONLinesFile {
    /// The offset of the next LF at or after `start`, or `p.count` (memchr).
    @inlinable public static func lineEnd(_ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < p.count, let found = memchr(p.baseAddress! + start, 0x0A, p.count - start) else { return p.count }
        return p.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// How many lines `p` has (LFs, plus a last line without one).
    public static func lineCount(_ p: UnsafeBufferPointer<UInt8>) -> Int {
        var n = 0, i = 0
        while i < p.count {
            n += 1
            i = lineEnd(p, from: i) + 1
        }
        return n
    }

    /// Whether `from..<to` holds only spaces and tabs (a blank line, skipped).
    @inlinable public static func isBlank(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Bool {
        for j in from..<to where p[j] != 0x20 && p[j] != 0x09 { return false }
        return true
    }

    /// `body` over the bytes of `bytes`, keeping the error's type (the standard
    /// library's `withUnsafeBufferPointer` rethrows it as `any Error`).
    @inlinable public static func withBytes<R, E: Error>(
        _ bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        var result: Result<R, E>?
        bytes.withUnsafeBufferPointer { p in result = Result { () throws(E) -> R in try body(p) } }
        return try result!.get()
    }

    /// `body` over the UTF-8 bytes of `text`, keeping the error's type.
    @inlinable public static func withBytes<R, E: Error>(
        of text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        var text = text
        var result: Result<R, E>?
        text.withUTF8 { p in result = Result { () throws(E) -> R in try body(p) } }
        return try result!.get()
    }

    /// The offset after a UTF-8 byte-order mark at the start of `p` (3), else 0.
    @inlinable public static func bodyStart(_ p: UnsafeBufferPointer<UInt8>) -> Int {
        p.count >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF ? 3 : 0
    }
}
