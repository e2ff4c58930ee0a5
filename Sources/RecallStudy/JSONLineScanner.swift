#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - A small, fast scanner for one JSON Lines record

/// The fields a recall log line may carry, read straight from UTF-8 bytes without
/// building a dictionary. Unknown keys are skipped (whatever their value), so newer
/// writers can add keys.
///
/// The values that name one of a few known words (`type`, `page`, `action`, `button`,
/// `result`) stay in the line's bytes (``LineWord``) and are compared there: they were
/// a String each, made, compared and released on every line (docs/perf-study.md,
/// round seven).
struct LineFields {
    var t: Int?
    var type: LineWord?
    var page: LineWord?
    var string: Int?
    var field: Int?
    var key: String?
    var action: LineWord?
    var text: String?
    var x: Double?
    var y: Double?
    var target: String?
    var button: LineWord?
    var result: LineWord?
    var values: [String]?
    var participant: String?
    var format: String?
    var strings: [String]?
    var device: String?
    /// The header's string set name (`set`).
    var set: String?
}

/// Why a line could not be read (the parser adds file and line).
struct ScanFailure: Error {
    var message: String
    init(_ m: String) { message = m }
}

/// Scans one line (no newline) holding one JSON object.
struct JSONLineScanner {
    private let p: UnsafeBufferPointer<UInt8>
    private var i: Int
    private let end: Int

    init(_ p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) {
        self.p = p
        self.i = start
        self.end = end
    }

    // ASCII bytes used below.
    private static let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C, colon: UInt8 = 0x3A, comma: UInt8 = 0x2C
    private static let lbrace: UInt8 = 0x7B, rbrace: UInt8 = 0x7D, lbracket: UInt8 = 0x5B, rbracket: UInt8 = 0x5D

    /// Reads the line's object into `f` (a fresh ``LineFields``). The fields are filled
    /// in place: returning them copied a struct of nineteen optionals per line.
    mutating func scan(into f: inout LineFields) throws {
        skipSpace()
        guard i < end, p[i] == Self.lbrace else { throw ScanFailure("expected a JSON object starting with '{'") }
        i += 1
        skipSpace()
        if i < end, p[i] == Self.rbrace { i += 1; try checkEnd(); return }
        while true {
            skipSpace()
            guard i < end, p[i] == Self.quote else { throw ScanFailure("expected a key in double quotes") }
            let keyStart = i + 1
            let keyEnd = try skipSimpleKey()
            skipSpace()
            guard i < end, p[i] == Self.colon else { throw ScanFailure("expected ':' after a key") }
            i += 1
            skipSpace()
            try readValue(forKeyFrom: keyStart, to: keyEnd, into: &f)
            skipSpace()
            guard i < end else { throw ScanFailure("the object is not closed (truncated line?)") }
            if p[i] == Self.comma { i += 1; continue }
            if p[i] == Self.rbrace { i += 1; break }
            throw ScanFailure("expected ',' or '}' in the object")
        }
        try checkEnd()
    }

    /// Only spaces may follow the object. (It does not take the fields: passing them
    /// through copied and released a struct of fifteen optional strings per line.)
    private mutating func checkEnd() throws {
        skipSpace()
        if i != end { throw ScanFailure("unexpected text after the JSON object") }
    }

    private mutating func skipSpace() {
        while i < end, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0D { i += 1 }
    }

    /// Skips a key string (keys we know are plain ASCII); returns the end of its bytes.
    private mutating func skipSimpleKey() throws -> Int {
        i += 1
        while i < end {
            let c = p[i]
            if c == Self.quote { let e = i; i += 1; return e }
            if c == Self.backslash { i += 2; continue }
            i += 1
        }
        throw ScanFailure("an object key is not closed (truncated line?)")
    }

    private func keyIs(_ s: StaticString, _ a: Int, _ b: Int) -> Bool {
        let n = s.utf8CodeUnitCount
        guard b - a == n else { return false }
        let k = s.utf8Start
        for j in 0..<n where p[a + j] != k[j] { return false }
        return true
    }

    private mutating func readValue(forKeyFrom a: Int, to b: Int, into f: inout LineFields) throws {
        switch b - a {
        case 1:
            if keyIs("t", a, b) { f.t = try readInt("t"); return }
            if keyIs("x", a, b) { f.x = try readDouble("x"); return }
            if keyIs("y", a, b) { f.y = try readDouble("y"); return }
        case 3:
            if keyIs("key", a, b) { f.key = try readWord("key").label; return }
            if keyIs("set", a, b) { f.set = try readString("set"); return }
        case 4:
            if keyIs("type", a, b) { f.type = try readWord("type"); return }
            if keyIs("page", a, b) { f.page = try readWord("page"); return }
            if keyIs("text", a, b) { f.text = try readString("text"); return }
        case 5:
            if keyIs("field", a, b) { f.field = try readInt("field"); return }
        case 6:
            if keyIs("string", a, b) { f.string = try readInt("string"); return }
            if keyIs("action", a, b) { f.action = try readWord("action"); return }
            if keyIs("target", a, b) { f.target = try readString("target"); return }
            if keyIs("button", a, b) { f.button = try readWord("button"); return }
            if keyIs("result", a, b) { f.result = try readWord("result"); return }
            if keyIs("values", a, b) { f.values = try readStringArray("values"); return }
            if keyIs("format", a, b) { f.format = try readString("format"); return }
            if keyIs("device", a, b) { f.device = try readString("device"); return }
        case 7:
            if keyIs("strings", a, b) { f.strings = try readStringArray("strings"); return }
        case 11:
            if keyIs("participant", a, b) { f.participant = try readString("participant"); return }
        default: break
        }
        try skipValue(depth: 0)
    }

    // MARK: Values

    private mutating func readString(_ k: String) throws -> String {
        try readWord(k).string
    }

    /// A string value where it lies in the line (``LineWord``); one with escapes is
    /// decoded.
    private mutating func readWord(_ k: String) throws -> LineWord {
        guard i < end, p[i] == Self.quote else { throw ScanFailure("\"\(k)\" must be a string") }
        i += 1
        let start = i
        while i < end {
            let c = p[i]
            if c == Self.quote {
                i += 1
                return .bytes(UnsafeBufferPointer(rebasing: p[start..<(i - 1)]))
            }
            if c == Self.backslash {
                i = start
                return .text(try readEscapedString(k))
            }
            if c < 0x20 { throw ScanFailure("\"\(k)\": control character inside a string") }
            i += 1
        }
        throw ScanFailure("\"\(k)\": the string is not closed (truncated line?)")
    }

    private mutating func readEscapedString(_ k: String) throws -> String {
        var out: [UInt8] = []
        while i < end {
            let c = p[i]
            if c == Self.quote { i += 1; return String(decoding: out, as: UTF8.self) }
            if c < 0x20 { throw ScanFailure("\"\(k)\": control character inside a string") }
            if c != Self.backslash { out.append(c); i += 1; continue }
            i += 1
            guard i < end else { break }
            let e = p[i]
            i += 1
            switch e {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x2F: out.append(0x2F)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var u = try hex4(k)
                if (0xD800...0xDBFF).contains(u) {
                    guard i + 1 < end, p[i] == Self.backslash, p[i + 1] == 0x75 else {
                        throw ScanFailure("\"\(k)\": unpaired surrogate escape")
                    }
                    i += 2
                    let lo = try hex4(k)
                    guard (0xDC00...0xDFFF).contains(lo) else { throw ScanFailure("\"\(k)\": unpaired surrogate escape") }
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(u) {
                    throw ScanFailure("\"\(k)\": unpaired surrogate escape")
                }
                guard let scalar = Unicode.Scalar(u) else { throw ScanFailure("\"\(k)\": bad \\u escape") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw ScanFailure("\"\(k)\": unknown escape \\\(Character(Unicode.Scalar(e)))")
            }
        }
        throw ScanFailure("\"\(k)\": the string is not closed (truncated line?)")
    }

    private mutating func hex4(_ k: String) throws -> UInt32 {
        guard i + 4 <= end else { throw ScanFailure("\"\(k)\": truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = p[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw ScanFailure("\"\(k)\": bad \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    /// The bytes of a JSON number at `i` (advances past it).
    private mutating func numberBytes(_ k: String) throws -> (Int, Int) {
        let start = i
        while i < end {
            let c = p[i]
            if (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 { i += 1 } else { break }
        }
        if i == start { throw ScanFailure("\"\(k)\" must be a number") }
        return (start, i)
    }

    private mutating func readInt(_ k: String) throws -> Int {
        let (a, b) = try numberBytes(k)
        var j = a
        var neg = false
        if p[j] == 0x2D { neg = true; j += 1 }
        guard j < b else { throw ScanFailure("\"\(k)\" must be a whole number") }
        var v = 0
        while j < b {
            let c = p[j]
            guard c >= 0x30 && c <= 0x39 else { throw ScanFailure("\"\(k)\" must be a whole number") }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int(c - 0x30))
            if o1 || o2 { throw ScanFailure("\"\(k)\" is too large") }
            v = s
            j += 1
        }
        return neg ? -v : v
    }

    private mutating func readDouble(_ k: String) throws -> Double {
        let (a, b) = try numberBytes(k)
        let s = String(decoding: UnsafeBufferPointer(rebasing: p[a..<b]), as: UTF8.self)
        guard let d = Double(s), d.isFinite else { throw ScanFailure("\"\(k)\" must be a number, got \(s)") }
        return d
    }

    private mutating func readStringArray(_ k: String) throws -> [String] {
        guard i < end, p[i] == Self.lbracket else { throw ScanFailure("\"\(k)\" must be a list of strings") }
        i += 1
        var out: [String] = []
        skipSpace()
        if i < end, p[i] == Self.rbracket { i += 1; return out }
        while true {
            skipSpace()
            out.append(try readString(k))
            skipSpace()
            guard i < end else { throw ScanFailure("\"\(k)\": the list is not closed (truncated line?)") }
            if p[i] == Self.comma { i += 1; continue }
            if p[i] == Self.rbracket { i += 1; return out }
            throw ScanFailure("\"\(k)\": expected ',' or ']' in the list")
        }
    }

    /// Skips any JSON value (for keys this version does not know).
    private mutating func skipValue(depth: Int) throws {
        guard depth < 32 else { throw ScanFailure("values are nested too deeply") }
        skipSpace()
        guard i < end else { throw ScanFailure("a value is missing (truncated line?)") }
        switch p[i] {
        case Self.quote: _ = try readWord("value")
        case Self.lbrace, Self.lbracket:
            let close = p[i] == Self.lbrace ? Self.rbrace : Self.rbracket
            let isObject = p[i] == Self.lbrace
            i += 1
            skipSpace()
            if i < end, p[i] == close { i += 1; return }
            while true {
                skipSpace()
                if isObject {
                    _ = try readWord("key")
                    skipSpace()
                    guard i < end, p[i] == Self.colon else { throw ScanFailure("expected ':' after a key") }
                    i += 1
                }
                try skipValue(depth: depth + 1)
                skipSpace()
                guard i < end else { throw ScanFailure("a value is not closed (truncated line?)") }
                if p[i] == Self.comma { i += 1; continue }
                if p[i] == close { i += 1; return }
                throw ScanFailure("expected ',' or a closing bracket")
            }
        case 0x74, 0x66, 0x6E:  // true false null
            while i < end, p[i] >= 0x61 && p[i] <= 0x7A { i += 1 }
        default:
            _ = try numberBytes("value")
        }
    }
}
