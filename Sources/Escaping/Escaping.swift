/// Text escaping shared by the renderer and the domain cores (which must not depend on
/// the renderer): JSON string literals and XML/HTML text.

/// JSON string literals.
public enum JSONText {
    /// `s` as a JSON string literal: `"` `\` escaped, `\n` `\r` `\t` by name, other
    /// control characters and U+2028/U+2029 as `\u00XX`; everything else as UTF-8.
    public static func quote(_ s: String) -> String {
        var out = "\""
        append(s, to: &out)
        return out + "\""
    }

    /// Appends the escaped body of `s` (without quotes) to `out`.
    public static func append(_ s: String, to out: inout String) {
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u == "\u{2028}" || u == "\u{2029}" {
                    appendHexEscape(u, to: &out)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
    }

    /// Appends `u` (a scalar below U+10000) as JSON's `\u` escape: four lowercase hex digits.
    public static func appendHexEscape(_ u: Unicode.Scalar, to out: inout String) {
        let hex = String(u.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}

/// XML and HTML text: the one escaper for element content and quoted attribute values
/// (Mustache's `{{…}}`, HTML cells and labels, SVG text, the experience graph, the
/// KeePass export). `& < > " '` become `&amp; &lt; &gt; &quot; &#39;`.
public enum XMLText {
    /// Whether `s` holds a byte ``escape(_:)`` changes. Over the String's contiguous
    /// bytes, each tested against a mask of the five (``isEscaped(_:)``): through
    /// `String.UTF8View` it was about 36 instructions a byte, most of the compiled page
    /// layout's cost (docs/perf-pages.md).
    @inline(__always)
    static func needsEscape(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { bytes in bytes.contains(where: isEscaped) }
            ?? s.utf8.contains(where: isEscaped)
    }

    /// `" & ' < >` (0x22, 0x26, 0x27, 0x3C, 0x3E: all below 64, so one bit each of a word).
    @inline(__always)
    static func isEscaped(_ c: UInt8) -> Bool {
        c < 64 && (0x5000_00C4_0000_0000 as UInt64) >> UInt64(c) & 1 != 0
    }

    /// Escapes `& < > " '` so text is shown as text in element content and in quoted
    /// attribute values.
    public static func escape(_ s: String) -> String {
        guard needsEscape(s) else { return s }
        var out = ""
        append(s, to: &out)
        return out
    }

    /// ``escape(_:)`` with `'` written `&#x27;`, as cmark-gfm writes it in the attribute
    /// values of the pages it renders (a link Dossier rewrites there keeps cmark's spelling).
    public static func escapeAsCmarkAttribute(_ s: String) -> String {
        guard needsEscape(s) else { return s }
        var out = ""
        append(s, to: &out, apostrophe: "&#x27;")
        return out
    }

    /// Appends `s` escaped as ``escape(_:)`` escapes it; text with none of the five
    /// characters (most text) is appended as it is after one byte scan.
    public static func append(_ s: String, to out: inout String) {
        append(s, to: &out, apostrophe: "&#39;")
    }

    static func append(_ s: String, to out: inout String, apostrophe: StaticString) {
        guard needsEscape(s) else {
            out += s
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count + 16)
        appendEscaped(s, to: &bytes, apostrophe: apostrophe)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// ``append(_:to:)`` into UTF-8 bytes (the compiled page layout gathers its ASCII
    /// text as bytes).
    public static func append(_ s: String, to bytes: inout [UInt8]) {
        guard needsEscape(s) else {
            // (From the contiguous bytes at once: `append(contentsOf: s.utf8)` copies one by one.)
            if s.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                bytes.append(contentsOf: s.utf8)
            }
            return
        }
        appendEscaped(s, to: &bytes, apostrophe: "&#39;")
    }

    /// The bytes of `s`, each of `& < > " '` replaced, appended to `bytes`.
    static func appendEscaped(_ s: String, to bytes: inout [UInt8], apostrophe: StaticString) {
        for c in s.utf8 {
            switch c {
            case 0x3C: bytes += "&lt;".utf8
            case 0x3E: bytes += "&gt;".utf8
            case 0x26: bytes += "&amp;".utf8
            case 0x22: bytes += "&quot;".utf8
            case 0x27: bytes += UnsafeBufferPointer(start: apostrophe.utf8Start, count: apostrophe.utf8CodeUnitCount)
            default: bytes.append(c)
            }
        }
    }

    /// Text for an XML 1.0 document that other programs read (the KeePass export):
    /// ``escape(_:)``, and also `\r` written as `&#13;` (a parser would turn a raw one
    /// into `\n`), and the control characters XML 1.0 forbids (below U+0020 other than tab
    /// and line feed) left out, since no reference can carry them.
    public static func escapeForXMLDocument(_ s: String) -> String {
        var out = "", run = String.UnicodeScalarView()
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            if ch == "\r" {
                append(String(run), to: &out)
                run = String.UnicodeScalarView()
                out += "&#13;"
            } else if ch.value >= 0x20 || ch == "\n" || ch == "\t" {
                run.append(ch)
            }
        }
        append(String(run), to: &out)
        return out
    }
}
