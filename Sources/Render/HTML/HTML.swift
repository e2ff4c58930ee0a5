#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Escaping

/// Escaping for text placed in HTML and XML (SVG) documents.
public enum HTML {
    /// Escapes `& < > " '` so text is shown as text in element content and in
    /// quoted attribute values.
    /// Text with none of them (most cells and labels) is returned as it is after one byte scan.
    /// (The shared escaper, ``XMLText/escape(_:)``; this name stays for the renderer's callers.)
    public static func escape(_ s: String) -> String { XMLText.escape(s) }

    /// A URL as escaped HTML that a narrow column may wrap only between its parts: a
    /// `<wbr>` after each `/`, `.`, `?`, `&`, `=`, `#`, `-` and `_` (docs/design-system.md,
    /// "URLs in tables"), never inside a word.
    public static func urlBreakable(_ url: String) -> String {
        var out = "", part = ""
        for ch in url {
            part.append(ch)
            if "/.?&=#-_".contains(ch) { out += escape(part) + "<wbr>"; part = "" }
        }
        return out + escape(part)
    }

    /// Text safe inside a `<script type="application/json">` block: JSON whose `<`, `>`
    /// and `&` are written as `\u003c` etc., so no `</script>` can close the block.
    public static func scriptSafeJSON(_ json: String) -> String {
        var out = ""
        out.reserveCapacity(json.utf8.count)
        for ch in json.unicodeScalars {
            switch ch {
            case "<", ">", "&", "\u{2028}", "\u{2029}": JSONText.appendHexEscape(ch, to: &out)
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
