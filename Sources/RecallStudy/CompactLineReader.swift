import JSONLines

// MARK: - The fast path of the log's field reader: a line as the apps write it

extension JSONLineScanner {
    /// Reads a line written the way the apps and `dossier recall simulate` write every
    /// event (`{"t":5202,"type":"key","key":"5","action":"down","text":"5"}`) straight
    /// from its bytes, or returns false to leave it to ``scanPlain(into:)``, its plain twin.
    ///
    /// It takes only a line it can read completely and exactly as the plain reader would:
    /// no white space anywhere; only the keys `t`, `x`, `y`, `key`, `type`, `page`,
    /// `text`, `field`, `string`, `action`, `target`, `button`, `result` and `values`,
    /// each at most once; strings without a backslash or a raw control character; whole
    /// numbers of 1–18 digits without a leading zero (`x` and `y` also with a fraction,
    /// at most 15 digits in all); `values` a list of such strings. Anything else — a header
    /// line, a fraction, an escape, a space, a repeated or unknown key, any error — makes
    /// it return false with `s.i` where it was, and the plain reader reads the line from
    /// its start (so every message is the plain reader's). It never refuses a line.
    /// What it filled into `f` before giving up must then be discarded.
    ///
    /// `LineFieldsFastPathTests` compares it with ``scanPlain(into:)`` on generated and
    /// damaged lines and on simulated logs; docs/json-lines.md, "Speed", gives its cost.
    mutating func readCompactLine(into f: inout LineFields) -> Bool {
        let end = s.end
        guard let p = s.p.baseAddress, s.i < end, end - s.i <= JSONLimits.lineBytes, p[s.i] == 0x7B else {
            return false
        }
        var i = s.i + 1
        var seen: UInt32 = 0
        while i < end, p[i] == 0x22 {
            // The key: its bytes up to the closing quote, then ':' at once.
            let k = i + 1
            var j = k
            while j < end, p[j] != 0x22 {
                if p[j] == 0x5C || p[j] < 0x20 { return false }
                j += 1
            }
            guard j + 1 < end, p[j + 1] == 0x3A else { return false }
            i = j + 2
            guard let bit = Self.compactKeyBit(p + k, count: j - k), seen & (1 << bit) == 0 else { return false }
            seen |= 1 << bit
            guard Self.compactValue(bit, p, &i, end, &f) else { return false }
            // After the value: ',' and the next key, or '}' ending the line.
            guard i < end else { return false }
            if p[i] == 0x2C { i += 1; continue }
            return p[i] == 0x7D && i + 1 == end
        }
        return false
    }

    /// The bit of a key the fast path reads (the plain reader's numbering), else nil.
    @inline(__always)
    static func compactKeyBit(_ k: UnsafePointer<UInt8>, count n: Int) -> UInt32? {
        func isKey(_ w: StaticString) -> Bool {
            let u = w.utf8Start
            for j in 0..<n where k[j] != u[j] { return false }
            return true
        }
        switch n {
        case 1:
            switch k[0] {
            case 0x74: return 0   // t
            case 0x78: return 1   // x
            case 0x79: return 2   // y
            default: return nil
            }
        case 3: return isKey("key") ? 3 : nil
        case 4:
            if isKey("type") { return 5 }
            if isKey("page") { return 6 }
            if isKey("text") { return 7 }
            return nil
        case 5: return isKey("field") ? 8 : nil
        case 6:
            if isKey("string") { return 9 }
            if isKey("action") { return 10 }
            if isKey("target") { return 11 }
            if isKey("button") { return 12 }
            if isKey("result") { return 13 }
            if isKey("values") { return 14 }
            return nil
        default: return nil
        }
    }

    /// Reads the value of the key of `bit` at `i` into `f`; false where the fast path
    /// does not read it (nothing is refused here).
    @inline(__always)
    static func compactValue(_ bit: UInt32, _ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int,
                             _ f: inout LineFields) -> Bool {
        switch bit {
        case 0: guard let v = compactInt(p, &i, end, digits: 18) else { return false }; f.t = v
        case 1: guard let v = compactDecimal(p, &i, end) else { return false }; f.x = v
        case 2: guard let v = compactDecimal(p, &i, end) else { return false }; f.y = v
        case 8: guard let v = compactInt(p, &i, end, digits: 18) else { return false }; f.field = v
        case 9: guard let v = compactInt(p, &i, end, digits: 18) else { return false }; f.string = v
        case 14:
            guard i < end, p[i] == 0x5B else { return false }
            i += 1
            var values: [String] = []
            if i < end, p[i] == 0x5D { i += 1; f.values = values; return true }
            while true {
                guard let w = compactWord(p, &i, end) else { return false }
                values.append(w.string)
                guard i < end else { return false }
                if p[i] == 0x2C { i += 1; continue }
                guard p[i] == 0x5D else { return false }
                i += 1
                f.values = values
                return true
            }
        default:
            guard let w = compactWord(p, &i, end) else { return false }
            switch bit {
            case 3: f.key = w.label
            case 5: f.type = w
            case 6: f.page = w
            case 7: f.text = w.string
            case 10: f.action = w
            case 11: f.target = w.string
            case 12: f.button = w
            default: f.result = w   // 13
            }
        }
        return true
    }

    /// An optional `-` and the digits after it, from `p[j]` (`j` before the end): the digits
    /// appended to `v` as ``compactDigits(_:_:_:into:)`` appends them; whether there was a
    /// `-`, and where the digits start.
    @inline(__always)
    static func compactSignedDigits(_ p: UnsafePointer<UInt8>, _ j: inout Int, _ end: Int,
                                    into v: inout Int) -> (negative: Bool, first: Int) {
        let negative = p[j] == 0x2D
        if negative { j += 1 }
        let first = j
        compactDigits(p, &j, end, into: &v)
        return (negative, first)
    }

    /// The digits from `p[j]` on, appended to `v` (`v` × 10 + digit each, wrapping: the
    /// callers allow at most 18 digits); `j` ends on the first byte that is not a digit.
    @inline(__always)
    static func compactDigits(_ p: UnsafePointer<UInt8>, _ j: inout Int, _ end: Int, into v: inout Int) {
        while j < end {
            let d = p[j] &- 0x30
            if d >= 10 { break }
            v = v &* 10 &+ Int(d)
            j += 1
        }
    }

    /// A whole number of 1…`digits` digits (`-`? then no leading zero), followed by
    /// `,` or `}`; nil otherwise.
    @inline(__always)
    static func compactInt(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int, digits most: Int) -> Int? {
        guard i < end else { return nil }
        var j = i, v = 0
        let (negative, first) = compactSignedDigits(p, &j, end, into: &v)
        let n = j - first
        guard n >= 1, n <= most, n == 1 || p[first] != 0x30, j < end,
              p[j] == 0x2C || p[j] == 0x7D else { return nil }
        i = j
        return negative ? -v : v
    }

    /// A number of at most 15 digits with an optional fraction (`-`? digits without a
    /// leading zero, then `.` and digits), followed by `,` or `}`, as the double the plain
    /// reader makes of it (`Double(text)`): the digits as an integer below 10¹⁵ and a power
    /// of ten up to 10¹⁵ are both exact doubles, so their quotient is the correctly
    /// rounded value (Clinger's fast path); `-0` is negative zero. Nil otherwise.
    @inline(__always)
    static func compactDecimal(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int) -> Double? {
        guard i < end else { return nil }
        var j = i, m = 0
        let (negative, first) = compactSignedDigits(p, &j, end, into: &m)
        let whole = j - first
        guard whole >= 1, whole == 1 || p[first] != 0x30 else { return nil }
        var fraction = 0
        if j < end, p[j] == 0x2E {
            j += 1
            let f = j
            compactDigits(p, &j, end, into: &m)
            fraction = j - f
            guard fraction >= 1 else { return nil }
        }
        guard whole + fraction <= 15, j < end, p[j] == 0x2C || p[j] == 0x7D else { return nil }
        i = j
        var scale = 1.0
        for _ in 0..<fraction { scale *= 10 }
        let q = Double(m) / scale
        return negative ? -q : q
    }

    /// A string without a backslash or a raw control character, as a ``LineWord`` of its
    /// bytes; nil otherwise.
    @inline(__always)
    static func compactWord(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int) -> LineWord? {
        guard i < end, p[i] == 0x22 else { return nil }
        let start = i + 1
        var j = start
        while j < end {
            let c = p[j]
            if c <= 0x5C {
                if c == 0x22 {
                    i = j + 1
                    return .bytes(UnsafeBufferPointer(start: p + start, count: j - start))
                }
                if c == 0x5C || c < 0x20 { return nil }
            }
            j += 1
        }
        return nil
    }
}
