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
                    out += "\\u"
                    let hex = String(u.value, radix: 16)
                    out += String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
    }
}

/// XML and HTML text.
public enum XMLText {
    /// Escapes `& < > " '` so text is shown as text in element content and in quoted
    /// attribute values.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// Text for an XML 1.0 document that other programs read (the KeePass export):
    /// ``escape(_:)``, and also `\r` written as `&#13;` (a parser would turn a raw one
    /// into `\n`), and the control characters XML 1.0 forbids (below U+0020 other than tab
    /// and line feed) left out, since no reference can carry them.
    public static func escapeForXMLDocument(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\r": out += "&#13;"
            case "\n", "\t": out.unicodeScalars.append(ch)
            default: if ch.value >= 0x20 { out.unicodeScalars.append(ch) }
            }
        }
        return out
    }
}
