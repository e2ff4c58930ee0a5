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
        forEachRow(log: log, result: result, strings: strings) { rows.append($0.cells) }
        return Table(header: header, rows: rows)
    }

    /// ``table(log:result:strings:)`` one row at a time, without a table of cells: the
    /// section writes raw.csv straight from these (≈ 1,500 rows of 11 cells per
    /// participant, whose arrays were ≈ 5 % of a study build; docs/perf-study.md).
    public static func forEachRow(log: SessionLog, result: ParticipantResult, strings: StringSet, _ body: (RawRow) -> Void) {
        let pid = log.participant
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
        func correct(_ text: String) -> Bool? {
            if page == .recall { return stringSet.contains(text) }
            if string != nil { return text == target() }
            return nil
        }
        func row(_ t: Int, _ phase: String, target: String, event: String) -> RawRow {
            RawRow(time: t, participant: pid, string: string, phase: phase, target: target, event: event)
        }
        func emitTurn() {
            guard turnIndex < result.pageTurns.count, let p = page, p.fieldCount > 0, p != .welcome else { return }
            let turn = result.pageTurns[turnIndex]
            turnIndex += 1
            for (i, text) in turn.fields.enumerated() {
                var r = row(turn.t, phase(p.fieldCount > 1 ? i + 1 : nil), target: targetOrMatch(text), event: "page-turn")
                r.entered = text; r.correct = correct(text); r.fields = text
                body(r)
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
                body(row(e.t, p.title, target: target(), event: "page"))
            case .focus(let f):
                focused = f
                body(row(e.t, phase(f), target: target(), event: "focus"))
            case .key(let label, let action, let newText, let field):
                let f = field ?? focused ?? 1
                if action != .up { focused = f }
                let text = newText ?? (texts[f] ?? "")
                texts[f] = text
                var r = row(e.t, phase(f), target: targetOrMatch(text), event: action.rawValue)
                r.key = label; r.entered = text; r.correct = correct(text)
                body(r)
            case .touch(let x, let y, let tgt):
                var r = row(e.t, phase(focused), target: target(), event: "touch" + (tgt.map { " " + $0 } ?? ""))
                r.touch = "\(fmtCoord(x)),\(fmtCoord(y))"
                body(r)
            case .button(let b, let ok):
                let what = "button " + b.rawValue + (ok.map { $0 ? " OK" : " Not OK" } ?? "")
                body(row(e.t, phase(focused), target: target(), event: what))
            case .fields:
                break
            case .close:
                body(row(e.t, phase(nil), target: target(), event: "close"))
                closed = true
            }
        }
        emitTurn()
    }

    static func fmtCoord(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}

/// One row of raw.csv (``RawData/header``); a nil column is an empty cell.
public struct RawRow: Sendable {
    public var time: Int
    public var participant: String
    public var string: Int?
    public var phase: String
    public var key: String? = nil
    public var entered: String? = nil
    public var target: String
    /// `True`/`False` (H: the text equals the target, or on Recall some string).
    public var correct: Bool? = nil
    public var touch: String? = nil
    public var fields: String? = nil
    public var event: String

    init(time: Int, participant: String, string: Int?, phase: String, target: String, event: String) {
        self.time = time; self.participant = participant; self.string = string
        self.phase = phase; self.target = target; self.event = event
    }

    /// The row as table cells (columns A–K).
    public var cells: [TableCell] {
        func text(_ s: String?) -> TableCell { s.map { .text($0) } ?? .empty }
        return [.int(time), .text(participant), .opt(string), .text(phase), text(key), text(entered), .text(target),
                correct.map { .bool($0) } ?? .empty, text(touch), text(fields), .text(event)]
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
