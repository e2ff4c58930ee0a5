#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - raw.csv and rolled-up.csv as tables (the section writes them as CSV)

/// One cell of an output table.
public enum TableCell: Sendable, Hashable {
    case text(String)
    /// A boolean: `True`/`False` in CSV, `true`/`false` in JSON. Kept apart from text so
    /// a text value that reads `True` (a participant numbered `True`) stays a string.
    case flag(Bool)
    case int(Int)
    case number(Double)
    case empty

    static func opt(_ i: Int?) -> TableCell { i.map { .int($0) } ?? .empty }
    static func opt(_ d: Double?) -> TableCell { d.map { .number($0) } ?? .empty }
    static func bool(_ b: Bool) -> TableCell { .flag(b) }

    /// The cell as plain text (numbers via `format`).
    public func text(format: (Double) -> String = { String($0) }) -> String {
        switch self {
        case .text(let s): return s
        case .flag(let b): return b ? "True" : "False"
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
        forEachRow(log: log, result: result, strings: strings) { rows.append($0.cells(strings)) }
        return Table(header: header, rows: rows)
    }

    /// ``table(log:result:strings:)`` one row at a time, without a table of cells: the
    /// section writes raw.csv straight from these (≈ 1,500 rows of 11 cells per
    /// participant, whose arrays were ≈ 5 % of a study build; docs/perf-study.md).
    /// A row names its phase, target and event instead of spelling them
    /// (``RawPhase``, ``RawEvent``, a string number), so the writer can encode each of
    /// them once per file (docs/perf-study.md, round six).
    public static func forEachRow(
        log: SessionLog, result: ParticipantResult, strings: StringSet, _ body: (RawRow) -> Void
    ) {
        let pid = log.participant
        var page: PageKind? = nil
        var string: Int? = nil
        var focused: Int? = nil
        var turnIndex = 0
        var texts = FieldTexts()
        let stringSet = Set(strings.strings)
        func phase(_ field: Int?) -> RawPhase {
            RawPhase(page: page, field: page == .entry || page == .recall ? field : nil)
        }
        /// Column G: the target; on Recall rows the string the text matches, if any.
        func targetOrMatch(_ text: String) -> Int? {
            page == .recall ? strings.strings.firstIndex(of: text).map { $0 + 1 } : string
        }
        func correct(_ text: String) -> Bool? {
            if page == .recall { return stringSet.contains(text) }
            if let string { return text == strings[number: string] }
            return nil
        }
        func row(_ t: Int, _ phase: RawPhase, target: Int?, event: RawEvent) -> RawRow {
            RawRow(time: t, participant: pid, string: string, phase: phase, target: target, event: event)
        }
        func emitTurn() {
            guard turnIndex < result.pageTurns.count, let p = page, p.fieldCount > 0, p != .welcome else { return }
            let turn = result.pageTurns[turnIndex]
            turnIndex += 1
            for (i, text) in turn.fields.enumerated() {
                var r = row(
                    turn.t, phase(p.fieldCount > 1 ? i + 1 : nil), target: targetOrMatch(text), event: .pageTurn)
                r.entered = text; r.correct = correct(text); r.fields = text
                body(r)
            }
        }
        // The events are read in place (`events[i]`), not copied one by one as `for e in`
        // does (≈ 2 % of a study build: each copy retains and releases the event's texts).
        log.events.withUnsafeBufferPointer { events in
            for i in events.indices {
                let t = events[i].t
                switch events[i].kind {
                case .page(let p, let s):
                    emitTurn()
                    page = p
                    string = s
                    focused = nil
                    texts.removeAll()
                    body(row(t, RawPhase(page: p, field: nil), target: string, event: .page))
                case .focus(let f):
                    focused = f
                    body(row(t, phase(f), target: string, event: .focus))
                case .key(let label, let action, let newText, let field):
                    let f = field ?? focused ?? 1
                    if action != .up { focused = f }
                    let text = newText ?? texts[f]
                    texts[f] = text
                    var r = row(t, phase(f), target: targetOrMatch(text), event: .key(action))
                    r.key = label; r.entered = text; r.correct = correct(text)
                    body(r)
                case .touch(let x, let y, let tgt):
                    var r = row(t, phase(focused), target: string, event: .touch(target: tgt))
                    r.touch = "\(fmtCoord(x)),\(fmtCoord(y))"
                    body(r)
                case .button(let b, let ok):
                    body(row(t, phase(focused), target: string, event: .button(b, verifyOK: ok)))
                case .fields:
                    break
                case .close:
                    body(row(t, phase(nil), target: string, event: .close))
                    return
                }
            }
        }
        emitTurn()
    }

    /// Column I's coordinate: a whole number as an integer, any other as Swift prints it.
    public static func fmtCoord(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}

/// The text of each field of the open page after its last key ("" before any): an
/// array for the fields 1–10 of every recall page, a dictionary for any other number.
private struct FieldTexts {
    private var small = [String](repeating: "", count: 11)
    private var other: [Int: String] = [:]

    subscript(field: Int) -> String {
        get { small.indices.contains(field) ? small[field] : other[field] ?? "" }
        set { if small.indices.contains(field) { small[field] = newValue } else { other[field] = newValue } }
    }

    mutating func removeAll() {
        for i in small.indices where !small[i].isEmpty { small[i] = "" }
        if !other.isEmpty { other = [:] }
    }
}

/// Column D of raw.csv: the page, and on the Entry and Recall pages the field
/// (`Entry 3`); empty before the first page.
public struct RawPhase: Sendable, Hashable {
    public var page: PageKind?
    /// The field, given only on pages with ten fields.
    public var field: Int?

    public init(page: PageKind?, field: Int?) { self.page = page; self.field = field }

    public var text: String {
        guard let page else { return "" }
        guard let field else { return page.title }
        return "\(page.title) \(field)"
    }
}

/// Column K of raw.csv: what happened.
public enum RawEvent: Sendable, Hashable {
    case page, focus, key(KeyAction), touch(target: String?), button(ButtonKind, verifyOK: Bool?), close
    /// One row per field when a page is left (its field's contents in column J).
    case pageTurn

    public var text: String {
        switch self {
        case .page: return "page"
        case .focus: return "focus"
        case .key(let action): return action.rawValue
        case .touch(let target): return "touch" + (target.map { " " + $0 } ?? "")
        case .button(let b, let ok): return "button " + b.rawValue + (ok.map { $0 ? " OK" : " Not OK" } ?? "")
        case .close: return "close"
        case .pageTurn: return "page-turn"
        }
    }
}

/// One row of raw.csv (``RawData/header``); a nil column is an empty cell.
public struct RawRow: Sendable {
    public var time: Int
    public var participant: String
    public var string: Int?
    public var phase: RawPhase
    public var key: String? = nil
    public var entered: String? = nil
    /// Column G: the number of the string shown (on Recall rows: the string the text
    /// equals), nil for an empty cell.
    public var target: Int?
    /// `True`/`False` (H: the text equals the target, or on Recall some string).
    public var correct: Bool? = nil
    public var touch: String? = nil
    public var fields: String? = nil
    public var event: RawEvent

    init(time: Int, participant: String, string: Int?, phase: RawPhase, target: Int?, event: RawEvent) {
        self.time = time; self.participant = participant; self.string = string
        self.phase = phase; self.target = target; self.event = event
    }

    /// The row as table cells (columns A–K).
    public func cells(_ strings: StringSet) -> [TableCell] {
        func text(_ s: String?) -> TableCell { s.map { .text($0) } ?? .empty }
        return [.int(time), .text(participant), .opt(string), .text(phase.text), text(key), text(entered),
                .text(target.map { strings[number: $0] } ?? ""),
                correct.map { .bool($0) } ?? .empty, text(touch), text(fields), .text(event.text)]
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
            rekey: Bool? = nil, keystrokes: Int? = nil, deletions: Int? = nil,
            dyn: (Double?, Double?, Double?, Double?)? = nil,
                 stringNumber: Int? = nil) {
            let n = stringNumber ?? s?.number
            rows.append([pid, .opt(n), s.map { .text($0.target) } ?? .empty, .opt(s?.length), .text(phase), .text(item),
                .opt(index), .opt(field), .opt(start), .opt(end), .opt(duration), text.map { .text($0) } ?? .empty,
                correct.map { .bool($0) } ?? .empty, rekey.map { .bool($0) } ?? .empty, .opt(keystrokes),
                .opt(deletions),
                         .opt(dyn?.0), .opt(dyn?.1), .opt(dyn?.2), .opt(dyn?.3)])
        }
        func d(_ x: Int?) -> Double? { x.map(Double.init) }
        for s in r.strings where s.reached {
            for v in s.memorizeViews {
                row(s, "Memorize", "view", index: v.view, start: v.start, end: v.end, duration: d(v.durationMs),
                    text: v.textAtTurn, correct: v.textAtTurn == s.target)
                if let k = v.toLastKeyMs {
                    row(
                        s, "Memorize", "view_to_last_key", index: v.view, start: v.start, end: v.start + k,
                        duration: d(k))
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
                row(
                    s, e.page.title, "practice_entry", index: e.order, field: e.field, start: e.start, end: e.end,
                    duration: d(e.durationMs), text: e.text, correct: e.correct, rekey: e.rekey,
                    keystrokes: e.keystrokes,
                    deletions: e.deletions,
                    dyn: (
                        e.dynamics.medianHold, e.dynamics.medianDownDown, e.dynamics.medianUpDown, e.dynamics.medianUpUp
                    ))
            }
            for e in s.entries {
                row(
                    s, "Entry", "entry", index: e.order, field: e.field, start: e.start, end: e.end,
                    duration: d(e.durationMs), text: e.text, correct: e.correct, rekey: e.rekey,
                    keystrokes: e.keystrokes,
                    deletions: e.deletions,
                    dyn: (
                        e.dynamics.medianHold, e.dynamics.medianDownDown, e.dynamics.medianUpDown, e.dynamics.medianUpUp
                    ))
            }
            for (i, text) in s.finalEntries.enumerated() {
                row(s, "Entry", "field_at_turn", field: i + 1, text: text, correct: text == s.target)
            }
            if let st = s.entryStart {
                // A page left without Done ends where its total does: the page turn, or the log's end.
                row(
                    s, "Entry", "total", start: st, end: s.entryDone ?? s.entryTotalMs.map { st + $0 },
                    duration: d(s.entryTotalMs),
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
            row(
                nil, "Recall", "strings_recalled", index: rc.stringsRecalled.count,
                text: rc.stringsRecalled.map(String.init).joined(separator: " "))
        }
        row(nil, "Multiple", "session_total", start: r.sessionStart, end: r.sessionEnd, duration: d(r.sessionTotalMs),
            text: r.complete ? "complete" : "incomplete")
        row(nil, "Multiple", "dynamics", dyn: (r.medianHold, r.medianDownDown, r.medianUpDown, r.medianUpUp))
        return Table(header: header, rows: rows)
    }
}
