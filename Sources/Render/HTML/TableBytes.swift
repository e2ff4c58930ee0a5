import CMarkArena
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// The byte-level searches and text helpers of ``TableMarkup`` (tables are found and read
// over the page's UTF-8 bytes).
extension TableMarkup {
    // MARK: Bytes

    /// The index after the `</table>` that closes the table opened at `start`, counting
    /// nested `<table` openings. Jumps from one `<table` or `</table>` to the next by
    /// `memmem` (a byte-by-byte walk tested every `<` of the page's charts and cells).
    static func matchingEnd(_ b: [UInt8], _ start: Int) -> Int? {
        b.withUnsafeBufferPointer { matchingEnd($0, start) }
    }

    static func matchingEnd(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        // An opening before the next close is looked for only up to that close (a search
        // to the page's end from every table was most of this); neither tag can overlap
        // the other, so this is the same test as comparing the next of each.
        var depth = 0
        var k = start
        while let close = search(b, "</table>", from: k, pivot: 4) {
            if let open = search(UnsafeBufferPointer(rebasing: b[..<close]), "<table", from: k, pivot: 3) {
                depth += 1
                k = open + 6
                continue
            }
            depth -= 1
            if depth <= 0 { return close + 8 }
            k = close + 8
        }
        return nil
    }

    static func matches(_ b: [UInt8], _ at: Int, _ s: String) -> Bool {
        // Straight over `s.utf8`: an array of it per call was most of `lastHeading`
        // (called at every `<` of the text before each table; docs/perf-study.md).
        var k = at
        for c in s.utf8 {
            guard k < b.count, b[k] == c else { return false }
            k += 1
        }
        return true
    }

    /// Whether `needle` occurs in `text` (a byte search; Foundation's `contains` compares
    /// Unicode characters).
    static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text
        return text.withUTF8 { ByteSearch.find(needle, in: $0, from: 0) != nil }
    }

    /// The first index ≥ `from` where `s` occurs in `b` (``ByteSearch``: this runs over
    /// every page with a table).
    static func find(_ b: [UInt8], _ s: String, from: Int) -> Int? {
        b.withUnsafeBufferPointer { ByteSearch.find(s, in: $0, from: from) }
    }

    /// The first index ≥ `from` where `needle` occurs in `b` (``dossier_memmem``).
    @inline(__always)
    static func search(_ b: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from: Int) -> Int? {
        guard from < b.count, let base = b.baseAddress,
              let p = dossier_memmem(base + from, b.count - from, needle.utf8Start, needle.utf8CodeUnitCount)
        else { return nil }
        return UnsafeRawPointer(base).distance(to: p)
    }

    /// ``search(_:_:from:)`` going from one place holding `needle[pivot]` and the byte after
    /// it to the next (``dossier_find_pair``): for a needle whose first bytes are common in
    /// a table (`<t`, `</`) and whose pair at `pivot` is not (`bl` of `</table>`).
    static func search(_ b: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from: Int, pivot: Int) -> Int? {
        let n = needle.utf8CodeUnitCount, nd = needle.utf8Start
        guard from >= 0, let base = b.baseAddress else { return nil }
        var k = from + pivot            // where the pair may stand
        while k + n - pivot <= b.count,
              let p = dossier_find_pair(base + k, b.count - k, nd[pivot], nd[pivot + 1]) {
            let at = UnsafeRawPointer(base).distance(to: p) - pivot
            guard at + n <= b.count else { return nil }
            if memcmp(base + at, nd, n) == 0 { return at }
            k = at + pivot + 1
        }
        return nil
    }

    /// The last index in `from..<to` where `needle` starts and ends by `to`.
    static func lastSearch(_ b: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from: Int, to: Int) -> Int? {
        let n = needle.utf8CodeUnitCount
        var k = to - n
        while k >= from {
            if b[k] == needle.utf8Start[0] && memcmp(b.baseAddress! + k, needle.utf8Start, n) == 0 { return k }
            k -= 1
        }
        return nil
    }

    /// The first index of `c` in `from..<before` (`memchr`).
    static func firstIndex(_ b: UnsafeBufferPointer<UInt8>, of c: UInt8, from: Int, before: Int? = nil) -> Int? {
        let end = before ?? b.count
        guard from < end, let base = b.baseAddress, let p = memchr(base + from, Int32(c), end - from) else {
            return nil
        }
        return UnsafeRawPointer(base).distance(to: p)
    }

    static func lastClosingHeading(_ b: [UInt8]) -> (Int, Int)? { b.withUnsafeBufferPointer { lastClosingHeading($0) } }

    /// The position and level of the last `</hN>` (N = 1…6) in `b`: one backward pass
    /// (a pass per level, each over 8 KB before every table, was 1 % of a pages build).
    static func lastClosingHeading(_ b: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        var k = b.count - 5
        while k >= 0 {
            if b[k] == 0x3C, b[k + 1] == 0x2F, b[k + 2] == 0x68, b[k + 3] >= 0x31, b[k + 3] <= 0x36, b[k + 4] == 0x3E {
                return (k, Int(b[k + 3] - 0x30))                               // "</h1>" … "</h6>"
            }
            k -= 1
        }
        return nil
    }

    /// The last index where `s` occurs in `b`, ending at or before `end` (default:
    /// anywhere). Compares in place with `memcmp`.
    static func findLast(_ b: [UInt8], _ s: String, endingBy end: Int? = nil) -> Int? {
        let u = Array(s.utf8)
        var k = (end ?? b.count) - u.count
        return b.withUnsafeBufferPointer { hay in
            while k >= 0 {
                if hay[k] == u[0] && memcmp(hay.baseAddress! + k, u, u.count) == 0 { return k }
                k -= 1
            }
            return nil
        }
    }

    static func firstIndex(_ b: [UInt8], of c: UInt8, from: Int) -> Int? {
        var k = from
        while k < b.count { if b[k] == c { return k }; k += 1 }
        return nil
    }

    static func lastIndex(_ b: [UInt8], of c: UInt8, before: Int) -> Int? {
        var k = before
        while k >= 0 { if b[k] == c { return k }; k -= 1 }
        return nil
    }

    /// `s` without leading and trailing white space: U+0009–000D, 0020, 0085, 00A0,
    /// 1680, 2000–200B, 2028, 2029, 202F, 205F, 3000 — the set of Foundation's
    /// `.whitespacesAndNewlines` on Linux, whose `trimmingCharacters` (through NSString)
    /// was the largest cost of a page with a table.
    static func trimmed(_ s: String) -> String {
        func isSpace(_ u: Unicode.Scalar) -> Bool {
            switch u.value {
            case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return s }
        return String(scalars[first...last])
    }

    static func stripTags(_ b: [UInt8]) -> String {
        var out: [UInt8] = []
        var inTag = false
        for c in b {
            if c == 0x3C { inTag = true } else if c == 0x3E { inTag = false } else if !inTag { out.append(c) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `&lt;` `&gt;` `&quot;` `&#39;` `&#x27;` and then `&amp;` decoded, in that order.
    static func decodeEntities(_ s: String) -> String {
        guard s.utf8.contains(0x26) else { return s }                // "&"
        if let ascii = decodeASCIIEntities(s) { return ascii }
        return decodeEntitiesByFoundation(s)
    }

    /// ``decodeEntities(_:)`` of ASCII text in one pass over its bytes (Foundation's six
    /// searches were most of reading a cell with an apostrophe or `&`). The same result:
    /// the entities cannot overlap (each runs from `&` to the next `;`), what the first
    /// five give (`< > " '`) cannot be part of a later one, and `&amp;` is decoded last
    /// in both, so its `&` starts nothing. In ASCII a byte is a Character. nil for other text.
    static func decodeASCIIEntities(_ s: String) -> String? {
        var s = s
        return s.withUTF8 { b -> String? in
            guard b.allSatisfy({ $0 < 0x80 }) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(b.count)
            var k = 0
            scan: while k < b.count {
                if b[k] == 0x26 {
                    for (name, byte) in asciiEntities {
                        let n = name.utf8CodeUnitCount
                        if k + n <= b.count, memcmp(b.baseAddress! + k, name.utf8Start, n) == 0 {
                            out.append(byte)
                            k += n
                            continue scan
                        }
                    }
                }
                out.append(b[k])
                k += 1
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The entities ``decodeEntities(_:)`` reads, with their bytes.
    private static let asciiEntities: [(StaticString, UInt8)] = [
        ("&lt;", 0x3C), ("&gt;", 0x3E), ("&quot;", 0x22), ("&#39;", 0x27),
        ("&#x27;", 0x27), ("&amp;", 0x26)
    ]

    /// The reference: Foundation's replacements, one entity after the other.
    static func decodeEntitiesByFoundation(_ s: String) -> String {
        s.replacingAll("&lt;", with: "<").replacingAll("&gt;", with: ">")
            .replacingAll("&quot;", with: "\"").replacingAll("&#39;", with: "'")
            .replacingAll("&#x27;", with: "'").replacingAll("&amp;", with: "&")
    }
}
