/// The one rule for control characters in user text (docs/json-and-csv.md, "Control
/// characters"):
///
/// - **ids** (participant ids, file-derived names, anything that becomes a path or a
///   key): a control character is an error (``firstControl(in:)`` finds it).
/// - **display text** (titles, labels, notes shown in HTML, CSV and Markdown): C0
///   controls other than TAB, LF and CR, DEL, and C1 controls (U+0080…U+009F) are
///   replaced by U+FFFD (``display(_:)``), so nothing invisible reaches a page or a cell.
public enum ControlCharacters {
    /// C0 (U+0000…U+001F), DEL (U+007F) or C1 (U+0080…U+009F).
    @inlinable
    public static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F)
    }

    /// A control character that display text may keep (TAB, LF, CR).
    @inlinable
    public static func isLayout(_ u: Unicode.Scalar) -> Bool {
        u == "\t" || u == "\n" || u == "\r"
    }

    /// The first control character of `s` (layout characters included) with its
    /// position in Unicode scalars, or nil.
    public static func firstControl(in s: String) -> (scalar: Unicode.Scalar, offset: Int)? {
        for (i, u) in s.unicodeScalars.enumerated() where isControl(u) { return (u, i) }
        return nil
    }

    /// `s` with every control character except TAB, LF and CR replaced by U+FFFD.
    /// Returns `s` itself (no copy) when it holds none.
    public static func display(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { isControl($0) && !isLayout($0) }) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            out.append(isControl(u) && !isLayout(u) ? "\u{FFFD}" : u)
        }
        return String(out)
    }

    /// ``display(_:)`` by a byte scan of the UTF-8 (C1 controls are the pairs
    /// `C2 80`…`C2 9F`): for whole pages, where the usual case is "nothing to replace".
    public static func displayUTF8(_ s: String) -> String {
        // Over the contiguous bytes (a native String always has them): iterating
        // `String.UTF8View` one byte at a time was about 2 % of a 10,000-page build.
        let found =
            s.utf8.withContiguousStorageIfAvailable(hasDisplayControlByWords) ?? hasDisplayControl(Array(s.utf8))
        return found ? display(s) : s
    }

    /// ``hasDisplayControl(_:)`` eight bytes at a time: a word holding no C0 control
    /// other than TAB, LF and CR, no DEL and no 0xC2 (the lead byte of every C1 control)
    /// cannot hold a control to replace, and is skipped whole; any other word goes through
    /// the byte rule. Whole pages (120 MB for 10,000 pages) are mostly such words; the byte
    /// loop alone was 2 % of a pages build. A word with a byte below 0x20 is tested again
    /// byte by byte in the word (``mayHoldDisplayControl(_:)``), so the words holding a
    /// newline (one in five of a page) are skipped too.
    static func hasDisplayControlByWords(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var i = 0
        let n = bytes.count
        var afterC2 = false
        while i + 8 <= n {
            let w = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            if mayHoldDisplayControl(w) || afterC2 {
                for k in i..<(i + 8) {
                    let b = base[k]
                    if isDisplayControl(b, afterC2: afterC2) { return true }
                    afterC2 = b == 0xC2
                }
            }
            // else: no 0xC2 in the word, so its last byte is not one (afterC2 stays false)
            i += 8
        }
        while i < n {
            let b = base[i]
            if isDisplayControl(b, afterC2: afterC2) { return true }
            afterC2 = b == 0xC2
            i += 1
        }
        return false
    }

    /// Whether the word `w` holds a C0 control other than TAB, LF and CR, a DEL or a 0xC2.
    /// First the classic tests (exact for the whole word, a few instructions: most words
    /// hold no byte below 0x20 at all), then, for a word with one, the exact tests of
    /// each byte, which tell a newline from a control to replace.
    @inline(__always)
    static func mayHoldDisplayControl(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        if hasZeroByte(w ^ 0x7F7F_7F7F_7F7F_7F7F) || hasZeroByte(w ^ 0xC2C2_C2C2_C2C2_C2C2) { return true }
        guard (w &- 0x2020_2020_2020_2020) & ~w & highs != 0 else { return false }
        let c0 = byteMask(w, below: 0x20) & ~byteMask(w, equalTo: 0x09) & ~byteMask(w, equalTo: 0x0A)
            & ~byteMask(w, equalTo: 0x0D)
        return c0 != 0
    }

    /// The high bit of each byte of `w` that is below `limit` (at most 0x80), every other
    /// bit clear. Exact for each byte: `(b & 0x7F) + (0x80 - limit)` never carries into
    /// the next byte (the classic "has a zero byte" test is exact only for the first).
    @inline(__always)
    static func byteMask(_ w: UInt64, below limit: UInt8) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F, highs: UInt64 = 0x8080_8080_8080_8080
        return ~(((w & low7) &+ UInt64(0x80 - limit) &* 0x0101_0101_0101_0101) | w) & highs
    }

    /// The high bit of each byte of `w` equal to `byte`, every other bit clear (exact per
    /// byte: ``byteMask(_:below:)`` of the bytes XORed with `byte`, below 1).
    @inline(__always)
    static func byteMask(_ w: UInt64, equalTo byte: UInt8) -> UInt64 {
        byteMask(w ^ (UInt64(byte) &* 0x0101_0101_0101_0101), below: 1)
    }

    /// The byte rule: a C0 control other than TAB, LF and CR, DEL, or the second byte of
    /// a C1 control (0x80…0x9F after 0xC2).
    @inline(__always)
    static func isDisplayControl(_ b: UInt8, afterC2: Bool) -> Bool {
        (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F || (afterC2 && b >= 0x80 && b <= 0x9F)
    }

    /// Whether UTF-8 `bytes` hold a control character ``display(_:)`` would replace.
    static func hasDisplayControl(_ bytes: some Collection<UInt8>) -> Bool {
        var afterC2 = false
        for b in bytes {
            if isDisplayControl(b, afterC2: afterC2) { return true }
            afterC2 = b == 0xC2
        }
        return false
    }

    /// `s` for an error message: every control character as `\u{XX}`.
    public static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { isControl($0) }) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isControl(u) {
                out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
