import Escaping

/// User text placed into generated Markdown (`report.md`, `summary.md`, …) so that any
/// Markdown renderer — including wikis and forges that pass raw HTML through — shows
/// it as the same text and never as markup (docs/json-and-csv.md, "Markdown side
/// outputs").
///
/// ``text(_:)`` rules, applied in one pass:
/// - control characters follow ``ControlCharacters/display(_:)`` (→ U+FFFD); CR, LF
///   and TAB become a space (a line break would end a table row or paragraph);
/// - `&` `<` `>` become `&amp;` `&lt;` `&gt;` (no tag, comment or entity survives);
/// - the Markdown punctuation `\` `` ` `` `*` `_` `[` `]` `~` `|` `!` is
///   backslash-escaped everywhere (no emphasis, code, link, image, strike-through or
///   table cell can start);
/// - at the start of the text, `#` `+` `-` `=` are backslash-escaped and a run of
///   digits followed by `.` or `)` gets its `.`/`)` escaped (no heading or list).
///
/// ``code(_:inTable:)`` makes a code span whose backtick fence is longer than any run
/// of backticks inside, so the content cannot close it; code spans never interpret
/// HTML. In a table (`inTable: true`) `|` is written `\|`, which GFM removes before
/// the cell's inline content is parsed.
public enum MarkdownText {
    /// `s` as literal inline Markdown text.
    public static func text(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        var atStart = true
        var digitsAtStart = true
        for u in s.unicodeScalars {
            let c: Unicode.Scalar = (u == "\n" || u == "\r" || u == "\t") ? " "
                : (ControlCharacters.isControl(u) ? "\u{FFFD}" : u)
            let isDigit = c.value >= 0x30 && c.value <= 0x39
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "[", "]", "~", "|", "!":
                out += "\\"; out.unicodeScalars.append(c)
            default:
                let blockStart = atStart && (c == "#" || c == "+" || c == "-" || c == "=")
                let listMark = digitsAtStart && !atStart && (c == "." || c == ")")
                if blockStart || listMark { out += "\\" }
                out.unicodeScalars.append(c)
            }
            if !isDigit { digitsAtStart = false }
            atStart = false
        }
        return out
    }

    /// `s` as a code span (shown in a monospace font, exactly as written).
    public static func code(_ s: String, inTable: Bool = true) -> String {
        var body = String.UnicodeScalarView()
        var longest = 0, run = 0
        for u in s.unicodeScalars {
            if u == "`" { run += 1; longest = max(longest, run) } else { run = 0 }
            if u == "\n" || u == "\r" || u == "\t" { body.append(" "); continue }
            if ControlCharacters.isControl(u) { body.append("\u{FFFD}"); continue }
            if u == "|" && inTable { body.append("\\") }
            body.append(u)
        }
        var text = String(body)
        if text.isEmpty { return "` `" }
        // A space on each side when the text begins or ends with a backtick or space
        // (CommonMark strips exactly one from each side).
        if text.hasPrefix("`") || text.hasSuffix("`") || text.hasPrefix(" ") || text.hasSuffix(" ") {
            text = " " + text + " "
        }
        let fence = String(repeating: "`", count: longest + 1)
        return fence + text + fence
    }
}
