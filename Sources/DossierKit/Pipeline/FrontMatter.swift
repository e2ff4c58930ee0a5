#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A content page's YAML front matter, parsed into the same ``ConfigNode`` that
/// `ConfigNode.parse` (libyaml + YAMLComposer) gives.
///
/// Why a second path: almost every page's front matter is a few flat `key: value`
/// lines, and composing them through Yams (a libyaml event stream, tag resolution, a
/// node tree) was about 4 % of a 10,000-page build. ``flat(_:firstLine:)`` reads exactly
/// that shape and answers nil for anything else — comments, quotes other than simple
/// double quotes, escapes, empty values, tabs, `\r`, non-ASCII, nesting, repeated keys —
/// which then goes through ConfigNode.parse, so values, lines and error messages are
/// its own. `FrontMatterFastPathTests` checks the two paths against each other.
enum FrontMatter {
    /// Parses the front matter `yaml` (the bytes between the `---` lines) of `file`,
    /// whose first line is line 2 of the file.
    static func parse(_ yaml: Data, file: String) throws -> ConfigNode {
        if let node = yaml.withUnsafeBytes({ flat($0.bindMemory(to: UInt8.self), firstLine: 2) }) { return node }
        return try ConfigNode.parse(String(decoding: yaml, as: UTF8.self), file: file, lineOffset: 1)
    }

    /// The node ConfigNode.parse composes for `yaml` when every line is `key: value\n` with
    /// - a key of ASCII letters, digits, `_` and `-`, starting with a letter;
    /// - `:` and one or more spaces;
    /// - a value that is either a double-quoted string of printable ASCII without `"`
    ///   or `\` (nothing after the closing quote), or a plain scalar starting with a
    ///   letter or digit and made of letters, digits, spaces and `_ . , / ( ) + -`, not
    ///   ending in a space (a plain `null`, `Null` or `NULL` is YAML's null);
    /// - no key given twice.
    /// Lines are numbered from `firstLine`. Nil when any line is anything else.
    static func flat(_ yaml: UnsafeBufferPointer<UInt8>, firstLine: Int) -> ConfigNode? {
        let n = yaml.count
        guard n > 0, yaml[n - 1] == 0x0A else { return nil }
        var entries: [ConfigEntry] = []
        var seen = Set<String>()
        var i = 0
        var line = firstLine
        while i < n {
            // Key.
            let keyStart = i
            guard isLetter(yaml[i]) else { return nil }
            while i < n, isLetter(yaml[i]) || isDigit(yaml[i]) || yaml[i] == 0x5F || yaml[i] == 0x2D { i += 1 }
            guard i < n, yaml[i] == 0x3A else { return nil }                       // ":"
            let key = String(decoding: UnsafeBufferPointer(rebasing: yaml[keyStart..<i]), as: UTF8.self)
            i += 1
            guard i < n, yaml[i] == 0x20 else { return nil }
            while i < n, yaml[i] == 0x20 { i += 1 }
            // Value, up to the end of the line.
            var end = i
            while end < n, yaml[end] != 0x0A { end += 1 }
            let value = UnsafeBufferPointer(rebasing: yaml[i..<end])
            let node: ConfigNode
            if let quoted = doubleQuoted(value) {
                node = .scalar(String(decoding: quoted, as: UTF8.self), line: line)
            } else if isPlain(value) {
                let text = String(decoding: value, as: UTF8.self)
                node =
                    text == "null" || text == "Null" || text == "NULL" ? .null(line: line) : .scalar(text, line: line)
            } else {
                return nil
            }
            guard seen.insert(key).inserted else { return nil }
            entries.append(ConfigEntry(key: key, keyLine: line, value: node))
            i = end + 1
            line += 1
        }
        return .map(entries, line: firstLine)
    }

    /// The inside of `"…"` when `value` is exactly that, of printable ASCII without `"`
    /// or `\`; else nil.
    private static func doubleQuoted(_ value: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard value.count >= 2, value[0] == 0x22, value[value.count - 1] == 0x22 else { return nil }
        let inner = UnsafeBufferPointer(rebasing: value[1..<(value.count - 1)])
        for b in inner where b < 0x20 || b > 0x7E || b == 0x22 || b == 0x5C { return nil }
        return inner
    }

    /// Whether `value` is a plain scalar of the restricted alphabet above.
    private static func isPlain(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = value.first, let last = value.last, isLetter(first) || isDigit(first), last != 0x20 else {
            return false
        }
        for b in value {
            switch b {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x20, 0x5F, 0x2E, 0x2C, 0x2F, 0x28, 0x29, 0x2B, 0x2D: continue
            default: return false
            }
        }
        return true
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}
