#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - JSON values with line numbers, read by the one scanner (docs/json-lines.md)

/// A JSON value that remembers the 1-based line it starts on, so a rule broken by a
/// value can be reported as `file:line`. Object members keep their order in the file.
public indirect enum JNode: Sendable, Equatable {
    case object([JMember], line: Int)
    case array([JNode], line: Int)
    case string(String, line: Int)
    case number(Double, line: Int)
    /// A number written as a whole number (no fraction, no exponent) that fits an `Int`;
    /// only read when asked for (``JSONReader/document(_:file:integers:)``), else such a
    /// number is a ``number(_:line:)`` too.
    case integer(Int, line: Int)
    case bool(Bool, line: Int)
    case null(line: Int)

    /// The line the value starts on.
    public var line: Int {
        switch self {
        case .object(_, let l), .array(_, let l), .string(_, let l), .number(_, let l), .bool(_, let l),
            .integer(_, let l):
            return l
        case .null(let l): return l
        }
    }

    /// The member `key` of an object, else `nil` (keys never repeat: the reader refuses
    /// a repeated key).
    public subscript(key: String) -> JNode? {
        guard case .object(let members, _) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var members: [JMember]? { if case .object(let m, _) = self { return m } else { return nil } }
    public var items: [JNode]? { if case .array(let a, _) = self { return a } else { return nil } }
    public var stringValue: String? { if case .string(let s, _) = self { return s } else { return nil } }
    public var numberValue: Double? {
        switch self {
        case .number(let d, _): return d
        case .integer(let n, _): return Double(n)
        default: return nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b, _) = self { return b } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// A short name of the value's type for messages ("a string", "an object", …).
    public var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "a list"
        case .string: return "text"
        case .number, .integer: return "a number"
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

    public init(key: String, keyLine: Int, value: JNode) {
        self.key = key
        self.keyLine = keyLine
        self.value = value
    }
}

/// Whole JSON texts and JSON Lines records as ``JNode`` trees.
public enum JSONReader {
    /// `data` as one JSON value (a file: a UTF-8 byte-order mark at its start is skipped).
    /// With `integers`, a whole number that fits an `Int` is an ``JNode/integer(_:line:)``.
    public static func document(_ data: Data, file: String, integers: Bool = false) throws(JSONLinesError) -> JNode {
        let bytes = [UInt8](data)
        return try JSONLinesFile.withBytes(bytes) { p throws(JSONLinesError) -> JNode in
            let start = p.count >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF ? 3 : 0
            var s = JSONScanner(p, from: start, to: p.count, isFile: true)
            do throws(JSONScanProblem) {
                s.skipSpace()
                guard s.i < s.end else { throw s.fail("the file holds no JSON value") }
                let v = try s.tree(depth: 0, firstLine: 1, integers: integers)
                try s.finish()
                return v
            } catch {
                throw s.located(error, file: file, firstLine: 1)
            }
        }
    }

    /// `text` as one JSON value.
    public static func document(_ text: String, file: String, integers: Bool = false) throws(JSONLinesError) -> JNode {
        try document(Data(text.utf8), file: file, integers: integers)
    }

    /// One JSON Lines record: the bytes `from..<to` of `p` (one line, no line break)
    /// hold exactly one object. `line` is its line number in `file`.
    public static func record(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int,
                              file: String, line: Int) throws(JSONLinesError) -> JNode {
        var s = JSONScanner(p, from: from, to: to)
        do throws(JSONScanProblem) {
            if to - from > JSONLimits.lineBytes {
                throw JSONScanProblem(at: from, "the line is longer than \(JSONLimits.lineBytes >> 20) MiB")
            }
            try s.openRecord()
            s.i -= 1
            let v = try s.tree(depth: 0, firstLine: line)
            try s.finish()
            return v
        } catch {
            throw s.located(error, file: file, firstLine: line)
        }
    }
}

extension JSONScanner {
    /// The value at `i` as a tree; `depth` counts the arrays and objects already open.
    mutating func tree(depth: Int, firstLine: Int, integers: Bool = false) throws(JSONScanProblem) -> JNode {
        let line = firstLine + lineBreaks
        guard i < end else { throw fail("a value is missing") }
        switch p[i] {
        case 0x7B:
            guard depth < JSONLimits.depth else { throw tooDeep() }
            i += 1
            var first = true
            var members: [JMember] = []
            var keys: Set<String> = []   // only for objects of more than 8 members
            while let k = try nextKey(first: &first) {
                let key = try checked(k)
                if members.count < 8 {
                    if members.contains(where: { $0.key == key }) { throw duplicate(key, at: keyStart) }
                } else {
                    if keys.isEmpty { keys = Set(members.map(\.key)) }
                    if !keys.insert(key).inserted { throw duplicate(key, at: keyStart) }
                }
                let keyLine = firstLine + keyLineBreaks
                let value = try tree(depth: depth + 1, firstLine: firstLine, integers: integers)
                members.append(JMember(key: key, keyLine: keyLine, value: value))
            }
            return .object(members, line: line)
        case 0x5B:
            guard depth < JSONLimits.depth else { throw tooDeep() }
            i += 1
            var first = true
            var items: [JNode] = []
            while try nextItem(first: &first) {
                items.append(try tree(depth: depth + 1, firstLine: firstLine, integers: integers))
            }
            return .array(items, line: line)
        case 0x22: return .string(try checked(try string()), line: line)
        case 0x74, 0x66, 0x6E:
            if let b = try word() { return .bool(b, line: line) }
            return .null(line: line)
        case 0x2D, 0x30...0x39:
            if integers {
                let at = i
                let n = try number()
                if n.whole, let v = Int(String(decoding: UnsafeBufferPointer(rebasing: p[n.start..<n.end]),
                                               as: UTF8.self)) {
                    return .integer(v, line: line)
                }
                i = at
            }
            return .number(try double(""), line: line)
        default: throw fail("not JSON: \(Self.describe(p[i])) cannot start a value")
        }
    }

    /// A string value as valid UTF-8 text (a plain value's bytes are checked here; the
    /// decoder checks an escaped one).
    mutating func checked(_ t: JSONText) throws(JSONScanProblem) -> String {
        switch t {
        case .decoded(let s): return s
        case .plain(let a, let b):
            guard let s = String(validating: UnsafeBufferPointer(rebasing: p[a..<b]), as: UTF8.self) else {
                var j = a
                while j < b, p[j] < 0x80 { j += 1 }
                throw JSONScanProblem(at: j, "the text is not valid UTF-8")
            }
            return s
        }
    }
}
