// MARK: - Strings, numbers and skipped values (docs/json-lines.md)

extension JSONScanner {
    // MARK: Strings

    /// A string value at `i` (its opening quote). Raw control characters are refused;
    /// escapes are decoded (a lone surrogate is refused).
    @inlinable @inline(__always) public mutating func string() throws(JSONScanProblem) -> JSONText {
        guard i < end, p[i] == 0x22 else {
            throw fail(i < end ? "expected text in double quotes, found \(Self.describe(p[i]))"
                               : "a value is missing")
        }
        i += 1
        let start = i
        while i < end {
            let c = p[i]
            // One comparison for most bytes (letters, digits above the backslash).
            if c <= 0x5C {
                if c == 0x22 { i += 1; return .plain(start: start, end: i - 1) }
                if c == 0x5C { i = start; return .decoded(try escapedString()) }
                if c < 0x20 { throw rawControl(c) }
            }
            i += 1
        }
        throw fail("a string is not closed before the end of the \(unit)")
    }

    @usableFromInline func rawControl(_ c: UInt8) -> JSONScanProblem {
        let h = Self.hex4(UInt32(c))
        return fail("a raw control character U+\(h) inside a string "
            + "(JSON needs it escaped, e.g. \\u\(h))")
    }

    @usableFromInline mutating func escapedString() throws(JSONScanProblem) -> String {
        var out: [UInt8] = []
        while i < end {
            let c = p[i]
            if c == 0x22 {
                i += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw fail("the text is not valid UTF-8")
                }
                return s
            }
            if c < 0x20 { throw rawControl(c) }
            if c != 0x5C { out.append(c); i += 1; continue }
            i += 1
            guard i < end else { break }
            let e = p[i]
            switch e {
            case 0x22, 0x5C, 0x2F: out.append(e)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                let escape = i - 1   // (a lone surrogate is named at its backslash)
                i += 1
                var u = try hex4()
                if (0xD800...0xDBFF).contains(u) {
                    guard i + 1 < end, p[i] == 0x5C, p[i + 1] == 0x75 else { throw lone(at: escape) }
                    i += 2
                    let lo = try hex4()
                    guard (0xDC00...0xDFFF).contains(lo) else { throw lone(at: escape) }
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(u) {
                    throw lone(at: escape)
                }
                appendUTF8(Unicode.Scalar(u)!, to: &out)
                continue
            default:
                throw fail("unknown escape \\\(Character(Unicode.Scalar(e))) "
                    + "(JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
            }
            i += 1
        }
        throw fail("a string is not closed before the end of the \(unit)")
    }

    func lone(at offset: Int) -> JSONScanProblem {
        JSONScanProblem(at: offset, "a lone surrogate in a \\u escape (a \\uD800–\\uDBFF must be followed by "
            + "a \\uDC00–\\uDFFF)")
    }

    func appendUTF8(_ s: Unicode.Scalar, to out: inout [UInt8]) {
        UTF8.encode(s) { out.append($0) }
    }

    mutating func hex4() throws(JSONScanProblem) -> UInt32 {
        guard i + 4 <= end else { throw fail("a \\u escape needs four hexadecimal digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = p[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("a \\u escape needs four hexadecimal digits")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    // MARK: Numbers

    /// A number at `i` in RFC 8259's grammar (`-`? then `0` or digits without a leading
    /// zero, then `.digits`? and `e`/`E` `+`/`-`? digits?). Returns its bytes and whether
    /// it is written as a whole number (no fraction, no exponent).
    @inlinable @inline(__always)
    public mutating func number() throws(JSONScanProblem) -> (start: Int, end: Int, whole: Bool) {
        let start = i
        if i < end, p[i] == 0x2D { i += 1 }
        let intStart = i
        while i < end, p[i] &- 0x30 < 10 { i += 1 }
        let digits = i - intStart
        var whole = true
        if digits == 0 || (digits > 1 && p[intStart] == 0x30) { throw badNumber(start) }
        if i < end, p[i] == 0x2E {
            i += 1
            let f = i
            while i < end, p[i] &- 0x30 < 10 { i += 1 }
            if i == f { throw badNumber(start) }
            whole = false
        }
        if i < end, p[i] | 0x20 == 0x65 {
            i += 1
            if i < end, p[i] == 0x2B || p[i] == 0x2D { i += 1 }
            let f = i
            while i < end, p[i] &- 0x30 < 10 { i += 1 }
            if i == f { throw badNumber(start) }
            whole = false
        }
        if i < end, Self.numberByte(p[i]) { throw badNumber(start) }
        if digits > JSONLimits.integerDigits {
            i = start
            throw fail("the number has \(digits) digits: too large "
                + "(at most \(JSONLimits.integerDigits) before a fraction)")
        }
        return (start, i, whole)
    }

    @inlinable static func numberByte(_ c: UInt8) -> Bool {
        c &- 0x30 < 10 || c == 0x2D || c == 0x2B || c == 0x2E || c | 0x20 == 0x65
    }

    @usableFromInline mutating func badNumber(_ start: Int) -> JSONScanProblem {
        var j = start
        while j < end, j - start < 24, Self.numberByte(p[j]) { j += 1 }
        let token = String(decoding: UnsafeBufferPointer(rebasing: p[start..<j]), as: UTF8.self)
        i = start
        if token.isEmpty {
            return fail("expected a value, found \(i < end ? Self.describe(p[i]) : "nothing")")
        }
        return fail("not a valid JSON number ('\(token)')")
    }

    /// A whole number (`what` must be one: "must be a whole number" otherwise). Its digits
    /// are read once; anything but `-`? and digits without a leading zero, of at most 19
    /// digits' value, is left to ``number()`` for the message.
    @inlinable @inline(__always) public mutating func int(_ what: String) throws(JSONScanProblem) -> Int {
        guard i < end, p[i] == 0x2D || p[i] &- 0x30 < 10 else {
            throw fail("\(what.isEmpty ? "the value" : "\"\(what)\"") must be a whole number")
        }
        let start = i
        var j = i
        let neg = p[j] == 0x2D
        if neg { j += 1 }
        let first = j
        var v = 0
        while j < end {
            let d = p[j] &- 0x30
            if d >= 10 { break }
            v = v &* 10 &+ Int(d)   // exact for up to 18 digits; more are checked below
            j += 1
        }
        let digits = j - first
        let overflow = digits > 18 && overflows(first, j)
        if digits == 0 || (digits > 1 && p[first] == 0x30) || (j < end && Self.numberByte(p[j])) || overflow {
            _ = try number()   // the grammar's message, or the digits' count
            i = start
            throw fail(overflow ? "\"\(what)\" is too large" : "\"\(what)\" must be a whole number")
        }
        i = j
        return neg ? -v : v
    }

    /// Whether the digits `a..<b` exceed `Int.max`.
    @usableFromInline func overflows(_ a: Int, _ b: Int) -> Bool {
        var v = 0
        for j in a..<b {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int(p[j] &- 0x30))
            if o1 || o2 { return true }
            v = s
        }
        return false
    }

    /// A number as a finite double.
    @inlinable @inline(__always) public mutating func double(_ what: String) throws(JSONScanProblem) -> Double {
        guard i < end, p[i] == 0x2D || p[i] &- 0x30 < 10 else {
            throw fail("\(what.isEmpty ? "the value" : "\"\(what)\"") must be a number")
        }
        let n = try number()
        let s = String(decoding: UnsafeBufferPointer(rebasing: p[n.start..<n.end]), as: UTF8.self)
        guard let d = Double(s), d.isFinite else {
            i = n.start
            throw fail("the number is too large for a double ('\(s.prefix(24))')")
        }
        return d
    }

    /// One of the words `true`, `false`, `null` (anything else is refused).
    @inlinable public mutating func word() throws(JSONScanProblem) -> Bool? {
        func match(_ w: StaticString) -> Bool {
            let n = w.utf8CodeUnitCount
            guard end - i >= n else { return false }
            for k in 0..<n where p[i + k] != w.utf8Start[k] { return false }
            if i + n < end, p[i + n] &- 0x61 < 26 { return false }
            i += n
            return true
        }
        if match("true") { return true }
        if match("false") { return false }
        if match("null") { return nil }
        throw fail("not JSON: a bare word (only true, false and null are JSON words)")
    }

    // MARK: Skipping

    /// Skips any value (a field a reader does not know), checking it as strictly as a
    /// read one, its objects' keys for repeats included. `depth` counts the arrays and
    /// objects already open.
    public mutating func skipValue(depth: Int) throws(JSONScanProblem) {
        guard i < end else { throw fail("a value is missing") }
        switch p[i] {
        case 0x22: _ = try string()
        case 0x7B:
            guard depth < JSONLimits.depth else { throw tooDeep() }
            i += 1
            var first = true
            var keys: Set<String> = []
            while let k = try nextKey(first: &first) {
                if !keys.insert(string(of: k)).inserted { throw duplicate(string(of: k), at: keyStart) }
                try skipValue(depth: depth + 1)
            }
        case 0x5B:
            guard depth < JSONLimits.depth else { throw tooDeep() }
            i += 1
            var first = true
            while try nextItem(first: &first) { try skipValue(depth: depth + 1) }
        case 0x74, 0x66, 0x6E: _ = try word()
        case 0x2D, 0x30...0x39: _ = try double("")   // (a skipped number is still a finite double)
        default: throw fail("not JSON: \(Self.describe(p[i])) cannot start a value")
        }
    }

    public func tooDeep() -> JSONScanProblem {
        fail("values are nested too deeply (at most \(JSONLimits.depth) arrays and objects inside each other)")
    }

    /// A repeated key (`at`: its opening quote).
    public func duplicate(_ key: String, at: Int) -> JSONScanProblem {
        JSONScanProblem(at: at, "the field '\(key)' appears twice")
    }
}
