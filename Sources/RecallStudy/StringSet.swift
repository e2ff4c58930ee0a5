#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - The character strings file (seed 4a)

/// The ten target strings, in the order every participant sees them.
///
/// File format (`docs/recall-events.md`): UTF-8 text, exactly 10 non-empty lines, each
/// at most 14 characters (Unicode characters, not bytes) of any kind, commas included.
/// Lines end in LF or CRLF; a final line ending is optional; a leading UTF-8 BOM is
/// ignored. Spaces are part of the string (Outstanding Question 6), so lines are not
/// trimmed. A trailing empty line after the tenth line is allowed (it is the final newline).
public struct StringSet: Sendable, Hashable, Codable {
    /// The strings, index 0 = string number 1.
    public var strings: [String]

    public static let count = 10
    public static let maxLength = 14

    public init(strings: [String]) { self.strings = strings }

    /// String number `n` (1–10).
    public subscript(number n: Int) -> String { strings[n - 1] }

    /// Reads and validates a strings file.
    public static func load(_ url: URL, display: String? = nil) throws -> StringSet {
        let name = display ?? url.path
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw RecallError(file: name, "cannot read the strings file")
        }
        return try parse(data, file: name)
    }

    /// Validates the bytes of a strings file.
    public static func parse(_ data: Data, file: String) throws -> StringSet {
        try UTF8Check.validate(data, file: file)
        guard var text = String(data: data, encoding: .utf8) else {
            throw RecallError(file: file, "the strings file is not UTF-8 text")
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // Split on LF scalars ("\r\n" is one Character in Swift, so split scalars, not Characters).
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var u = String.UnicodeScalarView(line)
            if u.last == "\r" { u.removeLast() }
            return String(u)
        }
        if lines.count > 1, lines.last == "" { lines.removeLast() }  // the final newline
        for (i, line) in lines.enumerated() {
            if line.isEmpty {
                throw RecallError(
                    file: file, line: i + 1, "line \(i + 1) is empty; every one of the 10 lines must hold a string")
            }
            if line.count > maxLength {
                throw RecallError(
                    file: file, line: i + 1,
                    "string \(i + 1) has \(line.count) characters; at most \(maxLength) are allowed")
            }
            if line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw RecallError(
                    file: file, line: i + 1,
                    "string \(i + 1) contains a control character (tabs and other invisible characters are not allowed)"
                )
            }
        }
        if lines.count != count {
            throw RecallError(file: file, line: lines.count > count ? count + 1 : nil,
                              "the strings file must have exactly \(count) lines, found \(lines.count)")
        }
        return StringSet(strings: lines)
    }
}

extension StringSet {
    /// The ten strings of the NIST desktop study (seed Appendix B) in their order of
    /// presentation (the `order` row); string 6 lost a character in the PDF, written `?`.
    public static let nistDesktop = StringSet(strings: [
        "5c2'Qe", "m#o)fp^2aRf207", "m3)61fHw", "d51)u4;X3wrf", "p4d46*3TXY",
        "q80<u?c2mv", "6n04%Ei'Hm3V", "4i_55fQ$2Mnh30", "3.bH1o", "ua7t?C2#",
    ])

    /// The strings file text (10 lines, LF).
    public var fileText: String { strings.joined(separator: "\n") + "\n" }
}
