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
        let found = s.utf8.withContiguousStorageIfAvailable(hasDisplayControl) ?? hasDisplayControl(Array(s.utf8))
        return found ? display(s) : s
    }

    /// Whether UTF-8 `bytes` hold a control character ``display(_:)`` would replace.
    static func hasDisplayControl(_ bytes: some Collection<UInt8>) -> Bool {
        var afterC2 = false
        for b in bytes {
            if (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F || (afterC2 && b >= 0x80 && b <= 0x9F) {
                return true
            }
            afterC2 = b == 0xC2
        }
        return false
    }

    /// `s` for an error message: every control character as `\u{XX}`.
    public static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { isControl($0) }) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isControl(u) { out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}" } else { out.unicodeScalars.append(u) }
        }
        return out
    }
}
