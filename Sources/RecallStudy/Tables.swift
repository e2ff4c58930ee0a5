import Foundation

// MARK: - raw.csv and rolled-up.csv as tables (the section writes them as CSV)

/// One cell of an output table.
public enum TableCell: Sendable, Hashable {
    case text(String)
    case int(Int)
    case number(Double)
    case empty

    static func opt(_ i: Int?) -> TableCell { i.map { .int($0) } ?? .empty }
    static func opt(_ d: Double?) -> TableCell { d.map { .number($0) } ?? .empty }
    static func bool(_ b: Bool) -> TableCell { .text(b ? "True" : "False") }

    /// The cell as plain text (numbers via `format`).
    public func text(format: (Double) -> String = { String($0) }) -> String {
        switch self {
        case .text(let s): return s
        case .int(let i): return String(i)
        case .number(let d): return format(d)
        case .empty: return ""
        }
    }
}

/// A header and rows.
public struct Table: Sendable, Hashable {
    public var header: [String]
    public var rows: [[TableCell]]
    public init(header: [String], rows: [[TableCell]]) { self.header = header; self.rows = rows }
}

public enum RawData {
    /// Column names of raw.csv: A–J of seed 4b.3 (J = field contents at the page turn),
    /// then K, Dossier's event kind.
    public static let header = [
        "A time_ms", "B participant", "C string", "D phase", "E key", "F entered",
        "G target", "H target_typed_correctly", "I touch_xy", "J fields_at_page_turn", "K event",
    ]

    /// One row per event (page turns expanded to one row per field), in time order.
    public static func table(log: SessionLog, result: ParticipantResult, strings: StringSet) -> Table {
        var rows: [[TableCell]] = []
        rows.reserveCapacity(log.events.count + 40)
        let pid = TableCell.text(log.participant)
        var page: PageKind? = nil
        var string: Int? = nil
        var focused: Int? = nil
        var turnIndex = 0
        var texts: [Int: String] = [:]
        let stringSet = Set(strings.strings)
        // "Entry 3" etc., made once per page and field (every key event asks).
        var fieldPhases: [Int: String] = [:]
        func phase(_ field: Int?) -> String {
            guard let p = page else { return "" }
            if (p == .entry || p == .recall), let f = field {
                if let name = fieldPhases[f] { return name }
                let name = "\(p.title) \(f)"
                fieldPhases[f] = name
                return name
            }
            return p.title
        }
        func target() -> String { string.map { strings[number: $0] } ?? "" }
        /// Column G: the target; on Recall rows the string the text matches, if any.
        func targetOrMatch(_ text: String) -> String {
            page == .recall ? (strings.strings.firstIndex(of: text).map { strings.strings[$0] } ?? "") : target()
        }
        func correct(_ text: String) -> TableCell {
            if page == .recall { return .bool(stringSet.contains(text)) }
            if string != nil { return .bool(text == target()) }
            return .empty
        }
        func emitTurn() {
            guard turnIndex < result.pageTurns.count, let p = page, p.fieldCount > 0, p != .welcome else { return }
            let turn = result.pageTurns[turnIndex]
            turnIndex += 1
            for (i, text) in turn.fields.enumerated() {
                let g = targetOrMatch(text)
                rows.append([.int(turn.t), pid, .opt(string), .text(phase(p.fieldCount > 1 ? i + 1 : nil)), .empty,
                             .text(text), .text(g), correct(text), .empty, .text(text), .text("page-turn")])
            }
        }
        var closed = false
        for e in log.events where !closed {
            switch e.kind {
            case .page(let p, let s):
                emitTurn()
                page = p
                string = s
                fieldPhases = [:]
                focused = nil
                texts = [:]
                rows.append([.int(e.t), pid, .opt(s), .text(p.title), .empty, .empty, .text(target()), .empty, .empty, .empty, .text("page")])
            case .focus(let f):
                focused = f
                rows.append([.int(e.t), pid, .opt(string), .text(phase(f)), .empty, .empty, .text(target()), .empty, .empty, .empty, .text("focus")])
            case .key(let label, let action, let newText, let field):
                let f = field ?? focused ?? 1
                if action != .up { focused = f }
                let text = newText ?? (texts[f] ?? "")
                texts[f] = text
                rows.append([.int(e.t), pid, .opt(string), .text(phase(f)), .text(label), .text(text), .text(targetOrMatch(text)),
                             correct(text), .empty, .empty, .text(action.rawValue)])
            case .touch(let x, let y, let tgt):
                rows.append([.int(e.t), pid, .opt(string), .text(phase(focused)), .empty, .empty, .text(target()), .empty,
                             .text("\(fmtCoord(x)),\(fmtCoord(y))"), .empty, .text("touch" + (tgt.map { " " + $0 } ?? ""))])
            case .button(let b, let ok):
                let what = "button " + b.rawValue + (ok.map { $0 ? " OK" : " Not OK" } ?? "")
                rows.append([.int(e.t), pid, .opt(string), .text(phase(focused)), .empty, .empty, .text(target()), .empty, .empty, .empty, .text(what)])
            case .fields:
                break
            case .close:
                rows.append([.int(e.t), pid, .opt(string), .text(phase(nil)), .empty, .empty, .text(target()), .empty, .empty, .empty, .text("close")])
                closed = true
            }
        }
        emitTurn()
        return Table(header: header, rows: rows)
    }

    static func fmtCoord(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}

public enum RolledUp {
    public static let header = [
        "participant", "string", "target", "length", "phase", "item", "index", "field",
        "start_ms", "end_ms", "duration_ms", "text", "correct", "rekey", "keystrokes", "deletions",
        "median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms",
    ]

    /// Every measure of docs/recall-measures.md, one row per item.
    public static func table(_ r: ParticipantResult) -> Table {
        var rows: [[TableCell]] = []
        let pid = TableCell.text(r.participant)
        func row(_ s: StringResult?, _ phase: String, _ item: String, index: Int? = nil, field: Int? = nil,
                 start: Int? = nil, end: Int? = nil, duration: Double? = nil, text: String? = nil, correct: Bool? = nil,
                 rekey: Bool? = nil, keystrokes: Int? = nil, deletions: Int? = nil, dyn: (Double?, Double?, Double?, Double?)? = nil,
                 stringNumber: Int? = nil) {
            let n = stringNumber ?? s?.number
            rows.append([pid, .opt(n), s.map { .text($0.target) } ?? .empty, .opt(s?.length), .text(phase), .text(item),
                         .opt(index), .opt(field), .opt(start), .opt(end), .opt(duration), text.map { .text($0) } ?? .empty,
                         correct.map { .bool($0) } ?? .empty, rekey.map { .bool($0) } ?? .empty, .opt(keystrokes), .opt(deletions),
                         .opt(dyn?.0), .opt(dyn?.1), .opt(dyn?.2), .opt(dyn?.3)])
        }
        func d(_ x: Int?) -> Double? { x.map(Double.init) }
        for s in r.strings where s.reached {
            for v in s.memorizeViews {
                row(s, "Memorize", "view", index: v.view, start: v.start, end: v.end, duration: d(v.durationMs),
                    text: v.textAtTurn, correct: v.textAtTurn == s.target)
                if let k = v.toLastKeyMs {
                    row(s, "Memorize", "view_to_last_key", index: v.view, start: v.start, end: v.start + k, duration: d(k))
                }
            }
            row(s, "Memorize", "total", index: s.memorizeViews.count, duration: d(s.memorizeTotalMs))
            for v in s.verifyViews {
                row(s, "Verify", "view", index: v.view, start: v.start, end: v.end, duration: d(v.durationMs),
                    text: v.textAtTurn, correct: v.textAtTurn == s.target)
            }
            row(s, "Verify", "total", index: s.verifyViews.count, duration: d(s.verifyTotalMs))
            for (i, a) in s.verifyAttempts.enumerated() {
                row(s, "Verify", "attempt", index: i + 1, start: a.t, text: a.text, correct: a.correct)
            }
            for e in s.practice {
                row(s, e.page.title, "practice_entry", index: e.order, field: e.field, start: e.start, end: e.end,
                    duration: d(e.durationMs), text: e.text, correct: e.correct, rekey: e.rekey, keystrokes: e.keystrokes,
                    deletions: e.deletions, dyn: (e.dynamics.medianHold, e.dynamics.medianDownDown, e.dynamics.medianUpDown, e.dynamics.medianUpUp))
            }
            for e in s.entries {
                row(s, "Entry", "entry", index: e.order, field: e.field, start: e.start, end: e.end,
                    duration: d(e.durationMs), text: e.text, correct: e.correct, rekey: e.rekey, keystrokes: e.keystrokes,
                    deletions: e.deletions, dyn: (e.dynamics.medianHold, e.dynamics.medianDownDown, e.dynamics.medianUpDown, e.dynamics.medianUpUp))
            }
            for (i, text) in s.finalEntries.enumerated() {
                row(s, "Entry", "field_at_turn", field: i + 1, text: text, correct: text == s.target)
            }
            if let st = s.entryStart {
                row(s, "Entry", "total", start: st, end: s.entryDone, duration: d(s.entryTotalMs),
                    text: s.completed ? "done" : "not done")
            }
            if let m = s.meanEntrySeconds {
                row(s, "Entry", "mean_entry", index: s.entries.count, duration: m * 1000,
                    keystrokes: s.entries.reduce(0) { $0 + $1.keystrokes }, deletions: s.deletions,
                    dyn: (s.medianHold, s.medianDownDown, s.medianUpDown, s.medianUpUp))
            }
            if let m = s.memorizeToLastEntryKeyMs, let st = s.memorizeViews.first?.start {
                row(s, "Multiple", "memorize_to_last_entry_key", start: st, end: st + m, duration: d(m))
            }
        }
        if let rc = r.recall {
            row(nil, "Recall", "total", start: rc.start, end: rc.lastKey, duration: d(rc.totalMs))
            for f in rc.fields {
                row(nil, "Recall", "field", field: f.field, text: f.text, correct: f.correct, stringNumber: f.matches)
            }
            row(nil, "Recall", "strings_recalled", index: rc.stringsRecalled.count, text: rc.stringsRecalled.map(String.init).joined(separator: " "))
        }
        row(nil, "Multiple", "session_total", start: r.sessionStart, end: r.sessionEnd, duration: d(r.sessionTotalMs),
            text: r.complete ? "complete" : "incomplete")
        row(nil, "Multiple", "dynamics", dyn: (r.medianHold, r.medianDownDown, r.medianUpDown, r.medianUpUp))
        return Table(header: header, rows: rows)
    }
}
