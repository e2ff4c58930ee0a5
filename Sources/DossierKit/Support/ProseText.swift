#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prose kept in text files beside the code — the commands' help (`Help/`) and page text
/// such as the game methods page's definitions (`Templates/game/methods-measures.txt`) —
/// so a writer fixes a sentence without editing Swift. Both are compiled into the binary
/// by the `EmbedFolders` plugin; the rules below are also written in `Help/README.md`.
///
/// A file is read like plain Markdown paragraphs:
/// - lines that start with a letter or a sign (not a space) and follow one another are one
///   paragraph, joined with single spaces; the reader wraps it to its own width;
/// - a line that starts with a space is kept as it is, on its own line (examples, tables);
/// - an empty line separates paragraphs and is kept;
/// - spaces at the end of a line, and empty lines at the end of the file, are dropped.
public enum ProseText {
    /// The text of a prose file with its paragraphs joined (see the type's rules).
    ///
    /// An ASCII text without `\r\n` (nearly every help file) is unwrapped over its bytes
    /// (``unwrapASCII(_:)``): there every byte is a Character. Every command's help is
    /// unwrapped when any command starts (ArgumentParser reads every configuration), and
    /// over Characters that was two thirds of `dossier version`'s instructions.
    public static func unwrap(_ text: String) -> String {
        var text = text
        return text.withUTF8(unwrapASCII) ?? unwrapByCharacter(text)
    }

    /// ``unwrap(_:)`` over bytes; nil when `bytes` holds a byte of 0x80 or more or a
    /// `\r\n` (one Character, so not a line break for the Character walk).
    static func unwrapASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var previous: UInt8 = 0
        for b in bytes {
            if b >= 0x80 || (previous == 0x0D && b == 0x0A) { return nil }
            previous = b
        }
        var out: [[UInt8]] = []
        var joinable = false
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
            var end = i
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0D) {
                end -= 1
            }
            let line = bytes[start..<end]
            start = i + 1
            if line.isEmpty {
                out.append([])
                joinable = false
            } else if line.first == 0x20 {
                out.append(Array(line))
                joinable = false
            } else if joinable {
                out[out.count - 1].append(0x20)
                out[out.count - 1] += line
            } else {
                out.append(Array(line))
                joinable = true
            }
        }
        while out.last?.isEmpty == true { out.removeLast() }
        return String(decoding: Array(out.joined(separator: [0x0A])), as: UTF8.self)
    }

    /// ``unwrap(_:)`` over Characters, for any text.
    static func unwrapByCharacter(_ text: String) -> String {
        var out: [String] = []
        var joinable = false   // the last line out is a paragraph that the next line continues
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = dropTrailingSpaces(raw)
            if line.isEmpty {
                out.append("")
                joinable = false
            } else if line.first == " " {
                out.append(String(line))
                joinable = false
            } else if joinable {
                out[out.count - 1] += " " + line
            } else {
                out.append(String(line))
                joinable = true
            }
        }
        while out.last == "" { out.removeLast() }
        return out.joined(separator: "\n")
    }

    /// A file split by `## <key>` headings into key → unwrapped text. Lines before the
    /// first heading (a note for the writer) are left out.
    public static func sections(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var key: String?
        var body: [Substring] = []
        func flush() {
            if let key { result[key] = unwrap(body.joined(separator: "\n")) }
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                flush()
                key = String(dropTrailingSpaces(line.dropFirst(3)))
                body = []
            } else {
                body.append(line)
            }
        }
        flush()
        return result
    }

    /// One prose file compiled into the binary, by its path from the resources' root
    /// (`Templates/game/methods-measures.txt`), split by ``sections(_:)``. A
    /// `$DOSSIER_RESOURCES` folder that holds the file is read instead.
    public static func sections(file path: String) -> [String: String] {
        let data = (try? Resources.data(path)) ?? EmbeddedResources.files[path].flatMap { Data(base64Encoded: $0) }
        guard let data else { preconditionFailure("Dossier's built-in \(path) is missing") }
        return sections(String(decoding: data, as: UTF8.self))
    }

    private static func dropTrailingSpaces(_ s: Substring) -> Substring {
        var s = s
        while s.last == " " || s.last == "\t" || s.last == "\r" { s.removeLast() }
        return s
    }
}
