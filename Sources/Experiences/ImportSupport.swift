#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines
import TextBasics

// MARK: - Importing tours from other viewers: shared parts

/// The result of an import: the experience and everything that had no Prep equivalent.
public struct ImportResult: Sendable {
    public var experience: Experience
    /// What was changed or left out, each with the line in the source file.
    public var notes: [ExperienceIssue]
    /// The experience in Dossier's file format.
    public var json: String { ExperienceWriter.json(experience) }
}

/// Converts tours written for other panorama viewers (Pannellum, Marzipano) into
/// experiences. See `docs/experience-format.md`, *Importing tours*.
public enum TourImporter {
    public static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    /// Yaw into −180…180 (180 stays 180).
    public static func wrapYaw(_ d: Double) -> Double {
        var y = d.truncatingRemainder(dividingBy: 360)
        if y > 180 { y -= 360 }
        if y < -180 { y += 360 }
        return y
    }

    /// Pitch clamped to −90…90; a changed value is reported through `note`.
    static func clampPitch(_ d: Double, what: String, line: Int?, note: (Int?, String) -> Void) -> Double {
        let c = min(90, max(-90, d))
        if c != d {
            note(
                line,
                "\(what) pitch \(ExperienceWriter.num(d))° is outside −90…90 and was clamped to "
                    + "\(ExperienceWriter.num(c))°"
            )
        }
        return c
    }

    static func parse(_ data: Data, file: String) throws(ExperienceError) -> JNode {
        do { return try JSONReader.document(data, file: file) } catch {
            throw ExperienceError([.syntax(error)])
        }
    }

    /// A number, also when the tour writes it as a string (`"yaw": "100"`), as Pannellum accepts.
    static func number(_ n: JNode?) -> Double? {
        guard let n else { return nil }
        if let v = n.numberValue { return v }
        if let s = n.stringValue?.trimmingWhitespace(), isDecimal(s), let v = Double(s), v.isFinite { return v }
        return nil
    }

    /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?` — a decimal number, not
    /// Swift's `Double(_:)` grammar, which also reads hexadecimal (`0x10` as 16), `inf`, `nan`.
    static func isDecimal(_ s: String) -> Bool {
        var u = Array(s.utf8)[...]
        func digits() -> Int { let n = u.prefix { $0 &- 0x30 < 10 }.count; u = u.dropFirst(n); return n }
        if let c = u.first, c == 0x2B || c == 0x2D { u = u.dropFirst() }
        var mantissa = digits()
        if u.first == 0x2E { u = u.dropFirst(); mantissa += digits() }
        guard mantissa > 0 else { return false }
        if let c = u.first, c == 0x65 || c == 0x45 {
            u = u.dropFirst()
            if let c = u.first, c == 0x2B || c == 0x2D { u = u.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return u.isEmpty
    }

    /// A number the tour must give (a hot spot's direction): when it is missing or not a
    /// number, 0 is used and a warning names the value and the guess.
    static func required(
        _ n: JNode?, _ name: String, of what: String, line: Int, note: (Int?, String) -> Void
    ) -> Double {
        if let v = number(n) { return v }
        let given = n.map { $0.stringValue.map { "\"\($0)\"" } ?? $0.typeName } ?? "missing"
        note(
            n?.line ?? line,
            "\(what): \(name) is \(given == "missing" ? "missing" : given + ", not a number"); 0 was used, so check "
                + "where it sits"
        )
        return 0
    }

    /// A number the tour may leave out (its default is 0 then, as in the source viewer): a
    /// value that is given but is not a number is warned about and 0 is used.
    static func optional(_ n: JNode?, _ name: String, of what: String, note: (Int?, String) -> Void) -> Double {
        guard let n else { return 0 }
        return required(n, name, of: what, line: n.line, note: note)
    }

    static func uniqueID(_ raw: String, _ used: inout Set<String>) -> String {
        var base = Rules.isValidID(raw) ? raw : ExperienceLoader.slugify(raw)
        if base.isEmpty { base = "scene" }
        var id = base, n = 2
        while used.contains(id) { id = "\(base)-\(n)"; n += 1 }
        used.insert(id)
        return id
    }

    /// Shortens `s` to at most `max` characters at a word boundary: the longest prefix of
    /// at most `max − 1` characters that ends before a space, followed by "…". A text
    /// with no space in that prefix is cut at `max − 1` characters. Reported through `note`.
    static func limit(_ s: String, _ max: Int, what: String, line: Int?, note: (Int?, String) -> Void) -> String {
        guard s.count > max else { return s }
        note(line, "\(what) was shortened to \(max) characters")
        return shorten(s, max)
    }

    /// The word-boundary shortening of ``limit(_:_:what:line:note:)``, without the report.
    public static func shorten(_ s: String, _ max: Int) -> String {
        guard s.count > max else { return s }
        let chars = Array(s)
        let room = max - 1
        var cut = room
        if chars[room] != " " {
            if let space = chars[0..<room].lastIndex(of: " "), space > 0 { cut = space }
        }
        var head = String(chars[0..<cut])
        while head.hasSuffix(" ") { head.removeLast() }
        return head + "…"
    }

    /// A remote address (`http:`, `https:`, `//host`, or any `scheme://`).
    static func isRemote(_ s: String) -> Bool {
        let l = s.lowercased()
        return l.hasPrefix("//") || hasScheme(l)
    }

    /// Whether `l` starts with `[a-z][a-z0-9+.-]*:` (a URL scheme and its colon).
    static func hasScheme(_ l: String) -> Bool {
        let b = Array(l.utf8)
        func letter(_ c: UInt8) -> Bool { c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z") }
        guard let first = b.first, letter(first) else { return false }
        var i = 1
        while i < b.count,
              letter(b[i]) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) || "+.-".utf8.contains(b[i]) {
            i += 1
        }
        return i < b.count && b[i] == UInt8(ascii: ":")
    }

    static func chooseTitle(_ t: String?, line: Int?, note: (Int?, String) -> Void) -> String? {
        guard let t, !t.isEmpty else { return nil }
        if Rules.titleLength.contains(t.count) { return t }
        note(
            line,
            "title \"\(t)\" is not 4 to 16 characters; it was left out so the default title applies (or pass --title)")
        return nil
    }

    /// A note trigger from an info hot spot: the label is the title (or the start of the
    /// text), shortened at a word boundary; the text is the whole text, up to 500 characters.
    static func noteTrigger(id: String, yaw: Double, pitch: Double, title: String?, text: String?, line: Int,
                            what: String, note: (Int?, String) -> Void) -> Trigger? {
        let body = (text?.isEmpty == false ? text : title) ?? ""
        guard !body.trimmingWhitespaceAndNewlines().isEmpty else {
            note(line, "\(what) has no text and was left out"); return nil
        }
        let label = limit(
            title?.isEmpty == false ? title! : body, Rules.labelLength.upperBound, what: "\(what) label", line: line,
            note: note)
        let full = limit(body, Rules.noteTextMax, what: "\(what) text", line: line, note: note)
        return Trigger(id: id, kind: .note, yaw: yaw, pitch: pitch, label: label, text: full, line: line)
    }
}
