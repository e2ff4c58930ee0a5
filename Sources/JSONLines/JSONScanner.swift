// MARK: - The one JSON scanner (docs/json-lines.md)

/// A string value as the scanner found it: its bytes between the quotes when it holds
/// no escape (nothing copied), or decoded.
@frozen public enum JSONText {
    case plain(start: Int, end: Int)
    case decoded(String)
}

/// Reads JSON (RFC 8259) from UTF-8 bytes, one token at a time, with the rules of
/// docs/json-lines.md: every reader of a JSON format in Dossier is built on it.
///
/// The buffer must outlive the scanner. `what` arguments name the value in messages
/// (a field name such as `t`, or "" for none). Line breaks are counted as whitespace
/// is skipped, so an error can name its line and column (``located(_:file:firstLine:)``).
@frozen public struct JSONScanner {
    public let p: UnsafeBufferPointer<UInt8>
    public var i: Int
    public let end: Int
    /// Line breaks skipped so far, and the offset just after the last one.
    public var lineBreaks = 0
    public var lineStart: Int
    /// Where the key ``nextKey(first:)`` returned last begins (its opening quote).
    public var keyStart = 0
    /// The line breaks skipped before that key.
    public var keyLineBreaks = 0
    /// Whether the text is a whole file (else one line): what ends early, in messages.
    @usableFromInline let isFile: Bool

    @inlinable public init(_ p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, isFile: Bool = false) {
        self.p = p
        self.i = start
        self.end = end
        self.lineStart = start
        self.isFile = isFile
    }

    /// "line" or "file", for messages.
    @usableFromInline var unit: String { isFile ? "file" : "line" }

    // MARK: Positions and errors

    /// `problem` at its file, line and column; `firstLine` is the line the scan began on.
    public func located(_ problem: JSONScanProblem, file: String, firstLine: Int) -> JSONLinesError {
        let at = min(max(problem.offset, lineStart), end)
        var column = 1
        for j in lineStart..<at where p[j] & 0xC0 != 0x80 { column += 1 }
        return JSONLinesError(file: file, line: firstLine + lineBreaks, column: column, problem.message)
    }

    @inlinable public func fail(_ m: String) -> JSONScanProblem { JSONScanProblem(at: i, m) }

    /// The problem of the text ending before `inside` is closed.
    @inlinable public func endsInside(_ inside: String) -> JSONScanProblem {
        fail("the \(unit) ends inside \(inside) (\(inside == "an object" ? "a '}'" : "a ']'") is missing)")
    }

    /// What a byte that cannot start or continue anything is, for messages.
    public static func describe(_ c: UInt8) -> String {
        if c < 0x20 || c == 0x7F { return "a raw control character U+\(hex4(UInt32(c)))" }
        if c >= 0x80 { return "the character" + (c == 0xEF ? " U+FEFF (a byte-order mark)" : "") }
        return "'\(Character(Unicode.Scalar(c)))'"
    }

    static func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    // MARK: Whitespace and structure

    /// Skips spaces, tabs, carriage returns and line breaks (counting the breaks).
    @inlinable @inline(__always) public mutating func skipSpace() {
        if i < end, p[i] > 0x20 { return }   // nearly always: compact JSON
        while i < end {
            let c = p[i]
            if c == 0x20 || c == 0x09 || c == 0x0D { i += 1; continue }
            if c == 0x0A { i += 1; lineBreaks += 1; lineStart = i; continue }
            return
        }
    }

    /// Only whitespace may follow the value that was read.
    @inlinable @inline(__always) public mutating func finish() throws(JSONScanProblem) {
        skipSpace()
        if i != end { throw fail("text after the end of the JSON value: \(Self.describe(p[i]))") }
    }

    /// Starts a line's record: whitespace, then `{` (else the message says what the
    /// line is instead).
    @inlinable @inline(__always) public mutating func openRecord() throws(JSONScanProblem) {
        skipSpace()
        guard i < end else { throw fail("the \(unit) holds no JSON value") }
        let c = p[i]
        if c == 0x7B { i += 1; return }
        let kind: String
        switch c {
        case 0x5B: kind = "not a JSON object: the \(unit) is an array (each line must be one {…} record)"
        case 0x22: kind = "not a JSON object: the \(unit) is a string"
        case 0x2D, 0x30...0x39: kind = "not a JSON object: the \(unit) is a number"
        case 0x74, 0x66, 0x6E: kind = "not a JSON object: the \(unit) is a bare word"
        default: kind = "not JSON: \(Self.describe(c)) cannot start a value"
        }
        throw fail(kind)
    }

    /// The next key of an object whose `{` was read (`first` says no member came yet),
    /// positioned after its `:`; nil once the closing `}` is read.
    @inlinable @inline(__always) public mutating func nextKey(first: inout Bool) throws(JSONScanProblem) -> JSONText? {
        skipSpace()
        guard i < end else { throw endsInside("an object") }
        if first {
            first = false
            if p[i] == 0x7D { i += 1; return nil }
        } else {
            if p[i] == 0x7D { i += 1; return nil }
            guard p[i] == 0x2C else { throw fail("expected ',' or '}' in an object, found \(Self.describe(p[i]))") }
            i += 1
            skipSpace()
            guard i < end else { throw endsInside("an object") }
        }
        guard p[i] == 0x22 else { throw fail("expected a key in double quotes, found \(Self.describe(p[i]))") }
        keyStart = i
        keyLineBreaks = lineBreaks
        let key = try string()
        skipSpace()
        guard i < end else { throw endsInside("an object") }
        guard p[i] == 0x3A else { throw fail("expected ':' after a key, found \(Self.describe(p[i]))") }
        i += 1
        skipSpace()
        guard i < end else { throw endsInside("an object") }
        return key
    }

    /// Whether another item of an array whose `[` was read follows (positioned on it).
    @inlinable @inline(__always) public mutating func nextItem(first: inout Bool) throws(JSONScanProblem) -> Bool {
        skipSpace()
        guard i < end else { throw endsInside("a list") }
        if first {
            first = false
            if p[i] == 0x5D { i += 1; return false }
        } else {
            if p[i] == 0x5D { i += 1; return false }
            guard p[i] == 0x2C else { throw fail("expected ',' or ']' in a list, found \(Self.describe(p[i]))") }
            i += 1
            skipSpace()
        }
        guard i < end else { throw endsInside("a list") }
        return true
    }

    /// The bytes of a ``JSONText/plain(start:end:)`` value, as a String.
    @inlinable public func string(of t: JSONText) -> String {
        switch t {
        case .plain(let a, let b): return String(decoding: UnsafeBufferPointer(rebasing: p[a..<b]), as: UTF8.self)
        case .decoded(let s): return s
        }
    }
}
