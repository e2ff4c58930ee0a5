#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - JSON with line numbers

/// A JSON value that remembers the 1-based line it starts on, so a rule broken by a
/// value can be reported as `file:line`. Object members keep their order in the file.
public indirect enum JNode: Sendable, Equatable {
    case object([JMember], line: Int)
    case array([JNode], line: Int)
    case string(String, line: Int)
    case number(Double, line: Int)
    case bool(Bool, line: Int)
    case null(line: Int)

    /// The line the value starts on.
    public var line: Int {
        switch self {
        case .object(_, let l), .array(_, let l), .string(_, let l), .number(_, let l), .bool(_, let l): return l
        case .null(let l): return l
        }
    }

    /// The member `key` of an object (the first one if repeated), else `nil`.
    public subscript(key: String) -> JNode? {
        guard case .object(let members, _) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var members: [JMember]? { if case .object(let m, _) = self { return m } else { return nil } }
    public var items: [JNode]? { if case .array(let a, _) = self { return a } else { return nil } }
    public var stringValue: String? { if case .string(let s, _) = self { return s } else { return nil } }
    public var numberValue: Double? { if case .number(let d, _) = self { return d } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b, _) = self { return b } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// A short name of the value's type for messages ("a string", "an object", …).
    public var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "a list"
        case .string: return "text"
        case .number: return "a number"
        case .bool: return "true/false"
        case .null: return "null"
        }
    }
}

/// One `"key": value` pair of an object, with the key's line.
public struct JMember: Sendable, Equatable {
    public var key: String
    public var keyLine: Int
    public var value: JNode
}

/// A JSON syntax error at a line.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var line: Int
    public var message: String
}

/// A small strict JSON parser (RFC 8259) that records line numbers.
public struct LineJSONParser {
    private let bytes: [UInt8]
    private var pos = 0
    private var line = 1

    /// Parses `data` as one JSON value (a UTF-8 byte-order mark is skipped).
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JNode {
        var p = LineJSONParser(bytes: Array(data))
        if p.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.pos = 3 }
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        if p.pos < p.bytes.count { throw p.fail("unexpected text after the JSON value") }
        return v
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JNode { try parse(Data(text.utf8)) }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ m: String) -> JSONSyntaxError { JSONSyntaxError(line: line, message: m) }

    private mutating func skipSpace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0D: pos += 1
            case 0x0A: pos += 1; line += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JNode {
        guard depth < 200 else { throw fail("JSON nested too deeply") }
        guard pos < bytes.count else { throw fail("unexpected end of file, expected a value") }
        let start = line
        switch bytes[pos] {
        case UInt8(ascii: "{"):
            pos += 1
            var members: [JMember] = []
            skipSpace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object([], line: start) }
            while true {
                skipSpace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
                let keyLine = line
                let key = try string()
                skipSpace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw fail("expected ':' after key \"\(key)\"") }
                pos += 1
                skipSpace()
                let v = try value(depth: depth + 1)
                members.append(JMember(key: key, keyLine: keyLine, value: v))
                skipSpace()
                guard pos < bytes.count else { throw fail("unexpected end of file inside an object") }
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                if bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(members, line: start) }
                throw fail("expected ',' or '}' in an object")
            }
        case UInt8(ascii: "["):
            pos += 1
            var items: [JNode] = []
            skipSpace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array([], line: start) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard pos < bytes.count else { throw fail("unexpected end of file inside a list") }
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                if bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(items, line: start) }
                throw fail("expected ',' or ']' in a list")
            }
        case UInt8(ascii: "\""):
            return .string(try string(), line: start)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true, line: start)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false, line: start)
        case UInt8(ascii: "n"): try literal("null"); return .null(line: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number(), line: start)
        default:
            throw fail("unexpected character '\(String(UnicodeScalar(bytes[pos])))'")
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard pos + w.count <= bytes.count, Array(bytes[pos..<pos + w.count]) == w else { throw fail("invalid literal, expected \(word)") }
        pos += w.count
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = pos
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        func digits(_ p: inout Int, _ b: [UInt8]) -> Int { let s = p; while p < b.count, (0x30...0x39).contains(b[p]) { p += 1 }; return p - s }
        guard pos < bytes.count else { throw fail("invalid number") }
        if bytes[pos] == UInt8(ascii: "0") { pos += 1 } else if digits(&pos, bytes) == 0 { throw fail("invalid number") }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            if digits(&pos, bytes) == 0 { throw fail("invalid number: digits expected after '.'") }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            if digits(&pos, bytes) == 0 { throw fail("invalid number: digits expected in exponent") }
        }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw fail("number out of range: \(text)") }
        return d
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[pos]; pos += 1
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("invalid \\u escape")
            }
            v = v * 16 + d
        }
        return v
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        pos += 1 // opening quote
        var out: [UInt8] = []
        while true {
            guard pos < bytes.count else { throw fail("unterminated string") }
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") { pos += 1; break }
            if c < 0x20 { throw fail(c == 0x0A ? "line break inside a string" : "control character inside a string") }
            if c == UInt8(ascii: "\\") {
                pos += 1
                guard pos < bytes.count else { throw fail("unterminated string") }
                let e = bytes[pos]; pos += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var cp = try hex4()
                    if (0xD800...0xDBFF).contains(cp) {
                        guard pos + 6 <= bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else { throw fail("unpaired surrogate in \\u escape") }
                        pos += 2
                        let lo = try hex4()
                        guard (0xDC00...0xDFFF).contains(lo) else { throw fail("unpaired surrogate in \\u escape") }
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(cp) { throw fail("unpaired surrogate in \\u escape") }
                    out.append(contentsOf: Array(String(Character(UnicodeScalar(cp)!)).utf8))
                default: throw fail("invalid escape '\\\(String(UnicodeScalar(e)))'")
                }
                continue
            }
            out.append(c); pos += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
        return s
    }
}
