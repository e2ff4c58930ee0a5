#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

// raw.csv written straight from the log's events (docs/perf-study.md, "Issue #45, the
// study's data path written from bytes"): the walk of `RawData.forEachRow`, but each row's
// fields go from the event, read in place, into the CSV record as they are found — no
// `RawRow` built and destroyed per row (its texts retained and released), no callback
// per row, the open page's target text looked up once per page instead of once per key.
// The plain twin is `RecallRender.rawCSVByRows` (the row walk of RecallStudy), and the
// tests' `ReferenceRawData` (RecallRawCSVFastPathTests, RawCSVDirectTwinTests).

enum RawCSVDirect {
    /// raw.csv of one participant: the bytes of ``RecallRender/rawCSVByRows(log:result:strings:bom:)``.
    static func data(log: SessionLog, result: ParticipantResult, strings: StringSet, bom: Bool) -> Data {
        let header = CSVWriter(header: RawData.header, includeBOM: bom).data
        var w = RawCSVBuffer(capacity: 1024 + 160 * (log.events.count + 10 * result.pageTurns.count), start: header)
        let words = RawCSVWords(participant: log.participant, strings: strings)
        words.encoded.withUnsafeBufferPointer { encoded in
            var walk = Walk(strings: strings, turns: result.pageTurns, words: words, encoded: encoded)
            log.events.withUnsafeBufferPointer { events in
                guard let first = events.baseAddress else { return }
                for i in events.indices where !walk.event(first + i, &w) { break }
            }
            walk.emitTurn(&w)
        }
        return w.data()
    }

    /// What the walk remembers between events (as `RawData.forEachRow` does): the open
    /// page, its string and that string's text, the focused field, each field's text.
    struct Walk {
        let strings: StringSet
        let turns: [PageTurn]
        let words: RawCSVWords
        let encoded: UnsafeBufferPointer<UInt8>
        var page: PageKind? = nil
        var string: Int? = nil
        /// The text of ``string`` (nil when there is none).
        var target: String? = nil
        var focused: Int? = nil
        var turnIndex = 0
        var texts = [String](repeating: "", count: 11)
        /// Field texts of fields above 10 (never on the app's pages; kept for any log).
        var otherTexts: [Int: String] = [:]
        /// Where the last key row's columns B–D are in the buffer, for ``keyPrefixField``
        /// of the open page (``RawCSVKeyRows``); nil after a page event.
        var keyPrefix: RawCSVKeyRows.Prefix? = nil
        var keyPrefixField: Int? = nil
        /// The field whose text's columns G and H (``targetAndCorrect(_:)``) were found
        /// last on this page, and those columns: a key with no text of its own (a
        /// release) keeps its field's text, and so the same answer.
        var answered: (field: Int, target: Int?, correct: Bool?)? = nil

        init(strings: StringSet, turns: [PageTurn], words: RawCSVWords, encoded: UnsafeBufferPointer<UInt8>) {
            self.strings = strings; self.turns = turns; self.words = words; self.encoded = encoded
        }

        func text(_ f: Int) -> String { texts.indices.contains(f) ? texts[f] : otherTexts[f] ?? "" }

        mutating func setText(_ f: Int, _ s: String) {
            if texts.indices.contains(f) { texts[f] = s } else { otherTexts[f] = s }
        }

        /// Column D's field: given only on the Entry and Recall pages.
        func phaseField(_ field: Int?) -> Int? { page == .entry || page == .recall ? field : nil }

        /// Column G and H of a row with text: on Recall the string the text equals (and
        /// whether there is one), else the page's string (and whether the text is it).
        func targetAndCorrect(_ text: String) -> (Int?, Bool?) {
            if page == .recall {
                let match = strings.strings.firstIndex(of: text).map { $0 + 1 }
                return (match, match != nil)
            }
            return (string, target.map { text == $0 })
        }

        /// Writes the rows of the event at `e`; false after Close (nothing after it is a
        /// row). The event is read through its pointer: handed over as a value (or as
        /// `events[i]`), its kind was copied, its texts retained and released, per event.
        mutating func event(_ e: UnsafePointer<SessionEvent>, _ w: inout RawCSVBuffer) -> Bool {
            let t = e.pointee.t
            switch e.pointee.kind {
            case .page(let p, let s):
                emitTurn(&w)
                page = p
                string = s
                target = s.flatMap { (1...strings.strings.count).contains($0) ? strings[number: $0] : nil }
                focused = nil
                keyPrefix = nil
                answered = nil
                for i in texts.indices where !texts[i].isEmpty { texts[i] = "" }
                if !otherTexts.isEmpty { otherTexts = [:] }
                row(&w, t, page: p, field: nil, target: string, event: .page)
            case .focus(let f):
                focused = f
                row(&w, t, page: page, field: phaseField(f), target: string, event: .focus)
            case .key(let label, let action, let newText, let field):
                let f = field ?? focused ?? 1
                if action != .up { focused = f }
                let entered: String, g: Int?, h: Bool?
                if let newText {
                    entered = newText
                    setText(f, newText)
                    (g, h) = targetAndCorrect(newText)
                    answered = (f, g, h)
                } else {
                    // The field's text stays as it is (setting it again changed nothing).
                    entered = text(f)
                    if let a = answered, a.field == f {
                        (g, h) = (a.target, a.correct)
                    } else {
                        (g, h) = targetAndCorrect(entered)
                        answered = (f, g, h)
                    }
                }
                keyRow(&w, t, field: phaseField(f), key: label, entered: entered, target: g, correct: h, action: action)
            case .touch(let x, let y, let tgt):
                let touch = "\(RawData.fmtCoord(x)),\(RawData.fmtCoord(y))"
                row(&w, t, page: page, field: phaseField(focused), target: string, touch: touch,
                    event: .touch(target: tgt))
            case .button(let b, let ok):
                row(&w, t, page: page, field: phaseField(focused), target: string, event: .button(b, verifyOK: ok))
            case .fields:
                break
            case .close:
                row(&w, t, page: page, field: nil, target: string, event: .close)
                return false
            }
            return true
        }

        /// The rows of the page being left: one per field, its text at the turn.
        mutating func emitTurn(_ w: inout RawCSVBuffer) {
            guard turnIndex < turns.count, let p = page, p.fieldCount > 0, p != .welcome else { return }
            let turn = turns[turnIndex]
            turnIndex += 1
            for (i, text) in turn.fields.enumerated() {
                let (g, h) = targetAndCorrect(text)
                row(&w, turn.t, page: p, field: phaseField(p.fieldCount > 1 ? i + 1 : nil), entered: text,
                    target: g, correct: h, fields: text, event: .pageTurn)
            }
        }

        /// One row, its fields written straight into the file's buffer (``RawCSVBuffer``):
        /// the fields of ``RecallRender/rawRowFields`` (columns A–K).
        func row(
            _ w: inout RawCSVBuffer, _ t: Int, page: PageKind?, field: Int?, key: String? = nil, entered: String? = nil,
            target: Int?, correct: Bool? = nil, touch: String? = nil, fields: String? = nil, event: RawEvent
        ) {
            w.rawFields(t, string, page, field, key, entered, target, correct, touch, fields, event, words, encoded)
        }
    }
}

extension CSVFieldSink where Self: ~Copyable {
    /// Columns A–K of one raw.csv row, as `rawRowFields` writes a `RawRow`'s.
    mutating func rawFields(
        _ t: Int, _ string: Int?, _ page: PageKind?, _ field: Int?, _ key: String?, _ entered: String?,
        _ target: Int?, _ correct: Bool?, _ touch: String?, _ fields: String?, _ event: RawEvent,
        _ words: RawCSVWords, _ encoded: UnsafeBufferPointer<UInt8>
    ) {
        numberField(t)
        encodedField(words.participant(encoded))
        if let string { numberField(string) } else { emptyField() }
        if let page {
            plainField(page.titleWord)
            if let field { appendToField(0x20); appendDigits(field) }
        } else {
            emptyField()
        }
        if let key { textField(key) } else { emptyField() }
        if let entered { textField(entered) } else { emptyField() }
        if let g = words.target(target, encoded) { encodedField(g) } else { emptyField() }
        if let correct { plainField(correct ? "True" : "False") } else { emptyField() }
        if let touch { textField(touch) } else { emptyField() }
        if let fields { textField(fields) } else { emptyField() }
        if let k = RawCSVWords.event(event) { plainField(k) } else { textField(event.text) }
        endRecord()
    }
}
