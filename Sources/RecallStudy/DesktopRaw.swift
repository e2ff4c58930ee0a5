#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - The desktop test's Raw Data file (seed Appendix A)

/// Imports the desktop Raw Data CSV into a ``SessionLog``.
///
/// Columns: A milliseconds since Begin, B participant number (or a phase name on marker
/// rows such as `320,Practice`), C string number, D phase code, E `D`/`U` (key down/up),
/// F the .NET `Keys` name, G the field's text when the event fired (before its effect),
/// H the target, I target = typed. A first row whose A is not a number is a header.
///
/// The typed character is taken from the change in column G, never from the key name
/// (layouts differ: the sample's `Oemtilde` typed `'`). The text after event *i* is
/// column G of the next row in the same field; the last event of a field keeps its own
/// text (its effect was not recorded).
///
/// Phase codes (inferred, see docs/recall-events.md): `P` and `M` → the Memorize page
/// (its practice field), `V` → Verify, `F1`–`F10` → Entry field 1–10, `R`, `R1`–`R10`
/// or `Recall`/`Final`/`FR` (+ n) → Recall field n (1 when no number).
public enum DesktopRaw {
    public static func load(_ url: URL, display: String? = nil) throws -> SessionLog {
        let name = display ?? url.path
        return try parse(records: CSVLines.load(url, display: name, what: "desktop Raw Data"), file: name)
    }

    struct Row {
        var line: Int
        var t: Int
        var participant: String
        var string: Int
        var page: PageKind
        var field: Int
        var action: KeyAction
        var key: String
        var before: String
        var target: String
    }

    /// Maps a desktop phase code to a page and field.
    static func phase(_ code: String) -> (PageKind, Int)? {
        let c = code.trimmingWhitespace().uppercased()
        switch c {
        case "P", "M", "PRACTICE", "MEMORIZE": return (.memorize, 1)
        case "V", "VERIFY": return (.verify, 1)
        default: break
        }
        for prefix in ["FINAL RECALL", "RECALL", "FR", "R"] where c.hasPrefix(prefix) {
            let rest = c.dropFirst(prefix.count).trimmingWhitespace()
            if rest.isEmpty { return (.recall, 1) }
            if let n = Int(rest), (1...10).contains(n) { return (.recall, n) }
            return nil
        }
        if c.hasPrefix("F"), let n = Int(c.dropFirst()), (1...10).contains(n) { return (.entry, n) }
        return nil
    }

    public static func parse(_ text: String, file: String) throws -> SessionLog {
        try parse(records: CSVLines.parse(text, file: file), file: file)
    }

    static func parse(records: [CSVRow], file: String) throws -> SessionLog {
        var rows: [Row] = []
        var markers: [(line: Int, t: Int, name: String)] = []
        var participant: String?
        var declared: [Int: DeclaredString] = [:]
        var lastT = Int.min
        var lastLine = 0
        for (idx, r) in records.enumerated() {
            var f = r.fields
            if f.allSatisfy({ $0.trimmingWhitespace().isEmpty }) { continue }
            while f.count < 9 { f.append("") }
            guard let t = Int(f[0].trimmingWhitespace()) else {
                if idx == 0 { continue }   // header
                throw RecallError(file: file, line: r.line,
                                  "column A must be the time in milliseconds, got \"\(f[0])\"")
            }
            if t < 0 { throw RecallError(file: file, line: r.line, "time \(t) is negative") }
            if t < lastT {
                throw RecallError(file: file, line: r.line,
                                  "event time \(t) goes backwards (previous \(lastT) on line \(lastLine))")
            }
            lastT = t
            lastLine = r.line
            let isMarker = f[2].isEmpty && f[3].isEmpty && f[4].isEmpty
            if isMarker {
                markers.append((r.line, t, f[1]))
                continue
            }
            guard let n = Int(f[2].trimmingWhitespace()) else {
                throw RecallError(file: file, line: r.line,
                                  "column C must be the string number (1–10), got \"\(f[2])\"")
            }
            guard (1...10).contains(n) else {
                throw RecallError(file: file, line: r.line, "string number \(n) is outside 1–10")
            }
            guard let (page, field) = phase(f[3]) else {
                throw RecallError(file: file, line: r.line,
                                  "unknown phase code \"\(f[3])\" (expected P, M, V, F1–F10 or R1–R10)")
            }
            let action: KeyAction
            switch f[4].trimmingWhitespace().uppercased() {
            case "D": action = .down
            case "U": action = .up
            default: throw RecallError(file: file, line: r.line, "column E must be D or U, got \"\(f[4])\"")
            }
            let p = f[1].trimmingWhitespace()
            try NativeLog.checkParticipant(p, file: file, line: r.line)
            if let old = participant, old != p {
                throw RecallError(file: file, line: r.line,
                                  "participant \(p) differs from \(old) earlier in the file (one file holds one "
                                  + "participant)")
            }
            participant = p
            let target = f[7]
            if page != .recall {
                if let d = declared[n], d.text != target {
                    throw RecallError(file: file, line: r.line, "the target of string \(n) changes within the file")
                }
                if declared[n] == nil { declared[n] = DeclaredString(number: n, text: target, line: r.line) }
            }
            rows.append(Row(line: r.line, t: t, participant: p, string: n, page: page, field: field,
                            action: action, key: f[5], before: f[6], target: target))
        }
        guard let participant else {
            throw RecallError(file: file, line: nil, "no key events in the desktop Raw Data file")
        }
        // Build events: page displays where the (page, string) changes, focus where the field changes.
        var events: [SessionEvent] = []
        var markerIndex = 0
        var curPage: (PageKind, Int)? = nil
        var curField = 0
        for (i, r) in rows.enumerated() {
            if curPage == nil || curPage! != (r.page, r.string) {
                // A marker row just before this row gives the display time.
                var t = r.t, line = r.line
                while markerIndex < markers.count, markers[markerIndex].line < r.line {
                    t = markers[markerIndex].t
                    line = markers[markerIndex].line
                    markerIndex += 1
                }
                events.append(SessionEvent(t: t, line: line,
                                           kind: .page(r.page, string: r.page == .recall ? nil : r.string)))
                curPage = (r.page, r.string)
                curField = 0
            }
            if r.field != curField {
                events.append(SessionEvent(t: r.t, line: r.line, kind: .focus(field: r.field)))
                curField = r.field
            }
            var after = r.before
            if i + 1 < rows.count {
                let n = rows[i + 1]
                if n.page == r.page, n.string == r.string, n.field == r.field { after = n.before }
            }
            events.append(SessionEvent(t: r.t, line: r.line,
                                       kind: .key(label: r.key, action: r.action, text: after, field: r.field)))
        }
        // A Recall phase marker implies a complete flow only when a Thank You marker follows; the
        // desktop file has none, so the session is complete only if it contains Recall keys.
        if rows.last?.page == .recall {
            events.append(SessionEvent(t: rows.last!.t, line: rows.last!.line, kind: .page(.thankyou, string: nil)))
        }
        return SessionLog(participant: participant, declaredStrings: declared.values.sorted { $0.number < $1.number },
                          events: events, source: .desktop, file: file)
    }

    /// The characters each key event typed, derived from the text change: `(inserted, deletedCount)`.
    public static func typedChange(before: String, after: String) -> (inserted: String, deleted: Int) {
        let b = Array(before), a = Array(after)
        var pre = 0
        while pre < b.count, pre < a.count, b[pre] == a[pre] { pre += 1 }
        var suf = 0
        while suf < b.count - pre, suf < a.count - pre, b[b.count - 1 - suf] == a[a.count - 1 - suf] { suf += 1 }
        return (String(a[pre..<(a.count - suf)]), b.count - pre - suf)
    }
}
