#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Session log → measures (docs/recall-measures.md)

public enum Analyzer {
    /// Computes every measure of one participant. Throws when the log's strings disagree
    /// with the strings file; problems that leave the data usable become warnings.
    public static func analyze(_ log: SessionLog, strings: StringSet) throws -> ParticipantResult {
        try NativeLog.checkParticipant(log.participant, file: log.file, line: log.declaredStrings.first?.line)
        for d in log.declaredStrings {
            guard (1...StringSet.count).contains(d.number) else {
                throw RecallError(file: log.file, line: d.line, "string number \(d.number) is outside 1–10")
            }
            if d.text != strings[number: d.number] {
                throw RecallError(file: log.file, line: d.line,
                                  "string \(d.number) in the log is \"\(d.text)\" "
                                    + "but the strings file has \"\(strings[number: d.number])\"")
            }
        }
        var a = Walk(log: log, strings: strings)
        // Each event to `step` by its address: handed over as a value (`for e in`, or
        // `events[i]`), it was copied twice per event, its texts retained and released.
        // The walk's key list points into the events (``KeyPress``), so it ends in here.
        return log.events.withUnsafeBufferPointer { events in
            if let first = events.baseAddress {
                for i in events.indices { a.step(at: first + i) }
            }
            return a.finish()
        }
    }

    /// Whether a text change removed characters (`before` → `after`). Asked for every
    /// key press: two ASCII texts are compared by their byte counts, as counting their
    /// Characters (grapheme breaking) was 0.6 % of a study build (docs/perf-study.md,
    /// round seven).
    static func isDeletion(_ before: String, _ after: String) -> Bool { lengthChange(before, after) < 0 }

    /// `after.count − before.count`, from the byte counts when both texts are ASCII (the
    /// question under ``isDeletion(_:_:)`` and ``addsSeveral(_:_:)``, which a key press
    /// asks once for both).
    static func lengthChange(_ before: String, _ after: String) -> Int {
        if let a = asciiCount(after), let b = asciiCount(before) { return a - b }
        return after.count - before.count
    }

    /// Whether `after` is `before` with the held key `label` typed once more (auto-repeat:
    /// its character appended, or one character removed for `⌫`).
    static func repeats(_ label: String, _ before: String, _ after: String) -> Bool {
        if label == "⌫" { return after.count == before.count - 1 }
        return after == before + (label == "space" ? " " : label)
    }

    /// Whether one key press made the text two or more characters longer (a paste, a drop,
    /// dictation: docs/recall-measures.md, "One-tap entries").
    static func addsSeveral(_ before: String, _ after: String) -> Bool { lengthChange(before, after) >= 2 }

    /// The number of Characters of an ASCII text without a CR (CR LF is one Character):
    /// its byte count. Nil for any other text.
    static func asciiCount(_ s: String) -> Int? {
        s.utf8.withContiguousStorageIfAvailable { b in
            b.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? b.count : nil
        } ?? nil
    }
}

// MARK: - The walk over events (its end, finish(), is in AnalyzerFinish.swift)

/// The entry being typed. Its key events are the walk's ``Walk/keys`` (one list kept
/// for the whole walk, emptied when a segment starts).
struct Segment {
    var field: Int
    var deletions = 0
    var text: String
    /// The log line of the first key press that added two or more characters at once.
    var oneTapLine: Int?
}

struct Walk {
    let log: SessionLog
    let strings: StringSet
    var results: [StringResult]
    var recall: RecallResult?
    var warnings: [RecallWarning]
    var pageTurns: [PageTurn] = []

    // The current page.
    var page: PageKind?
    var pageString: Int?
    var pageStart = 0
    var pageView = 0
    var fieldText: [String] = []
    /// Per field, ``Analyzer/asciiCount(_:)`` of its text, kept from the key that set
    /// it (each key press compared the text before with the text after, counting both):
    /// −1 for a text that is not ASCII without CR, −2 when not counted yet.
    var fieldCounts: [Int] = []
    var turnFields: [String]?
    var focused: Int?
    var segment: Segment?
    /// The open segment's key events, in log order (``KeyPress``: no label stored, so no
    /// retain, release or destroy per key; docs/perf-study.md, "Issue #45, the
    /// participant analysis and its JSON"). Room for 64 from the start, kept between
    /// segments.
    var keys: [KeyPress] = { var k: [KeyPress] = []; k.reserveCapacity(64); return k }()
    var lastKeyOnPage: Int?
    /// The fields (1–10) that already have an entry on this page, as bits `1 << field`.
    var keyedFields: UInt64 = 0
    var lastT = 0
    var complete = false
    var closed = false
    var highestString = 0
    /// When each string's Entry page was last left (string number → ms).
    var entryLeft: [Int: Int] = [:]

    init(log: SessionLog, strings: StringSet) {
        self.log = log
        self.strings = strings
        self.warnings = log.warnings
        results = (1...StringSet.count).map { n in
            let target = strings[number: n]
            return StringResult(number: n, target: target, length: target.count, reached: false, completed: false,
                                memorizeViews: [], memorizeTotalMs: 0, verifyViews: [], verifyTotalMs: 0,
                                verifyAttempts: [], verifyFailures: 0, practice: [], entryStart: nil, entryDone: nil,
                                entryTotalMs: nil, entries: [], finalEntries: [], finalCorrect: 0, incorrectEntries: 0,
                                rekeys: 0, deletions: 0)
        }
    }

    mutating func warn(_ line: Int?, _ message: String) {
        warnings.append(RecallWarning(file: log.file, line: line, message))
    }

    var target: String? { pageString.map { strings[number: $0] } }

    // MARK: Steps

    /// One event, read where it lies (`e.pointee`: no copy of the event or its texts).
    mutating func step(at e: UnsafePointer<SessionEvent>) {
        let t = e.pointee.t, line = e.pointee.line
        if closed {
            // Ignored entirely: they neither count nor move the end of the session.
            warn(line, "event after the app was closed; ignored")
            return
        }
        lastT = t
        switch e.pointee.kind {
        case .page(let p, let s):
            leavePage(at: t, movingOn: true)
            openPage(p, string: s, at: t, line: line)
        case .focus(let f):
            if let seg = segment, seg.field != f { closeSegment() }
            focused = f
        case .key(_, let action, let newText, let field):
            guard let p = page, p.fieldCount > 0, p != .welcome else {
                let place = page.map { "the \($0.title) page" } ?? "no page"
                warn(line, "a key on \(place) (no field to type in); ignored")
                return
            }
            let f = field ?? focused ?? 1
            guard f <= fieldText.count else {
                warn(line, "field \(f) does not exist on the \(p.title) page; ignored")
                return
            }
            let text = newText ?? fieldText[f - 1]
            if action != .up { focused = f }   // a press is typed where the cursor is; a release moves nothing
            if action == .up && segment?.field != f {
                // A release never starts an entry (the release of the key that moved the
                // focus here, say): its text still counts, its timing belongs to no entry.
                fieldText[f - 1] = text
                if newText != nil { fieldCounts[f - 1] = -2 }
                return
            }
            if segment == nil || segment!.field != f {
                closeSegment()
                segment = Segment(field: f, text: fieldText[f - 1])
                keys.removeAll(keepingCapacity: true)
            }
            if action == .tap, let held = heldKey(), !Analyzer.repeats(held, fieldText[f - 1], text) {
                // An autocorrect the held key set off (iOS at the space bar): its text, no keystroke.
                segment!.text = text
                fieldText[f - 1] = text
                fieldCounts[f - 1] = -2
                return
            }
            if action != .up {
                // isDeletion and addsSeveral from one count
                let (change, count) = lengthChange(field: f - 1, to: text)
                if change < 0 { segment!.deletions += 1 }
                if change >= 2, segment!.oneTapLine == nil { segment!.oneTapLine = line }
                fieldCounts[f - 1] = count
            } else if newText != nil {
                fieldCounts[f - 1] = -2   // a release that states the text (unchanged without one)
            }
            keys.append(KeyPress(event: e, action: action, t: t))
            segment!.text = text
            fieldText[f - 1] = text
            if action != .up { lastKeyOnPage = t }
        case .touch:
            break
        case .button(let b, let ok):
            closeSegment()
            switch b {
            case .verify:
                guard page == .verify, let n = pageString else {
                    warn(line, "Verify pressed outside the Verify page; ignored")
                    return
                }
                let text = fieldText.first ?? ""
                let correct = text == strings[number: n]
                if let ok, ok != correct {
                    warn(line, "the app showed \(ok ? "OK" : "Not OK") for string \(n) "
                         + "but the text \(correct ? "matches" : "does not match") the target; "
                         + "the core's judgement is used")
                }
                results[n - 1].verifyAttempts.append(VerifyAttempt(t: t, text: text, correct: correct, appResult: ok))
                if !correct { results[n - 1].verifyFailures += 1 }
            case .done:
                if page == .entry, let n = pageString {
                    if fieldText.contains(where: \.isEmpty) {
                        warn(line, "Done pressed on the Entry page of string \(n) with empty fields")
                    }
                    if results[n - 1].entryDone == nil {
                        results[n - 1].entryDone = t
                        results[n - 1].completed = true
                    }
                }
            case .startTest:
                if page == .verify, let n = pageString, !(results[n - 1].verifyAttempts.last?.correct ?? false) {
                    warn(line, "Start Test pressed for string \(n) without a correct Verify")
                }
            case .begin, .next, .memorize:
                break
            }
        case .fields(let values):
            if let p = page, values.count == fieldText.count {
                for (i, v) in values.enumerated() where v != fieldText[i] && p != .welcome {
                    warn(line, "field \(i + 1) at the page turn differs from the text after its last key; "
                         + "the page-turn contents are used")
                }
            }
            turnFields = values
        case .close:
            closed = true
        }
    }

    mutating func openPage(_ p: PageKind, string s: Int?, at t: Int, line: Int) {
        page = p
        pageString = s
        pageStart = t
        fieldText = Array(repeating: "", count: p.fieldCount)
        fieldCounts = Array(repeating: 0, count: p.fieldCount)
        turnFields = nil
        focused = nil
        segment = nil
        lastKeyOnPage = nil
        keyedFields = 0
        switch p {
        case .memorize, .verify, .entry:
            let n = s!
            if n < highestString {
                warn(line, "string \(n) shown after string \(highestString); strings are shown in file order")
            }
            highestString = max(highestString, n)
            results[n - 1].reached = true
            if p == .memorize { pageView = results[n - 1].memorizeViews.count + 1 }
            if p == .verify { pageView = results[n - 1].verifyViews.count + 1 }
            if p == .entry {
                if results[n - 1].entryStart != nil {
                    warn(line, "the Entry page of string \(n) is shown again; its times continue the first display")
                    for i in results[n - 1].entries.indices { keyedFields |= Self.bit(results[n - 1].entries[i].field) }
                } else {
                    results[n - 1].entryStart = t
                }
            }
        case .recall:
            if recall != nil {
                warn(line, "the Recall page is shown again; the later display replaces the earlier")
            }
            recall = RecallResult(start: t, end: t, lastKey: nil, totalMs: nil, fields: [], stringsRecalled: [],
                                  entries: [])
        case .thankyou:
            complete = true
        case .welcome, .ready:
            break
        }
    }

    mutating func closeSegment() {
        guard let seg = segment, let p = page, let pressed = Self.presses(keys)
        else { segment = nil; return }
        let (start, end, downs) = pressed
        segment = nil
        let rekey = keyedFields & Self.bit(seg.field) != 0
        keyedFields |= Self.bit(seg.field)
        var correct = false
        if p == .recall {
            correct = strings.strings.contains(seg.text)
        } else if let t = target {
            correct = seg.text == t
        }
        var entry = TypedEntry(page: p, field: seg.field, order: 0, start: start, end: end, durationMs: end - start,
                               text: seg.text, correct: correct, rekey: rekey, keystrokes: downs,
                               deletions: seg.deletions, dynamics: Analyzer.dynamics(of: keys),
                               oneTap: p == .entry && seg.oneTapLine != nil)   // (practice entries: never)
        switch p {
        case .entry:
            let n = pageString!
            if let line = seg.oneTapLine {
                warn(line, "string \(n), field \(seg.field): one key press entered several characters at once "
                     + "(a paste, a drop or dictation): this entry is left out of the entry times "
                     + "(docs/recall-measures.md, \"One-tap entries\")")
            }
            entry.order = results[n - 1].entries.count + 1
            results[n - 1].entries.append(consume entry)   // moved: no copy of its texts and lists
        case .memorize, .verify:
            let n = pageString!
            entry.order = results[n - 1].practice.count(where: { $0.page == p }) + 1
            results[n - 1].practice.append(consume entry)
        case .recall:
            entry.order = (recall?.entries.count ?? 0) + 1
            recall?.entries.append(consume entry)
        default:
            break
        }
    }

    /// Leaves the open page at `t`; `movingOn` when another page is displayed (not the
    /// end of the log).
    mutating func leavePage(at t: Int, movingOn: Bool = false) {
        closeSegment()
        guard let p = page else { return }
        let fields = turnFields ?? fieldText
        if p.fieldCount > 0 && p != .welcome {
            pageTurns.append(PageTurn(t: t, page: p, string: pageString, fields: fields))
        }
        switch p {
        case .memorize, .verify:
            let n = pageString!
            let v = PageView(view: pageView, start: pageStart, end: t, durationMs: t - pageStart,
                             toLastKeyMs: lastKeyOnPage.map { $0 - pageStart }, textAtTurn: fields.first ?? "")
            if p == .memorize {
                results[n - 1].memorizeViews.append(v)
                results[n - 1].memorizeTotalMs += v.durationMs
            } else {
                results[n - 1].verifyViews.append(v)
                results[n - 1].verifyTotalMs += v.durationMs
            }
        case .entry:
            let n = pageString!
            results[n - 1].finalEntries = fields
            entryLeft[n] = t
            // A recorder without a Done button (the desktop test) moves on by showing the
            // next page: leaving the Entry page for another page completes it.
            if movingOn { results[n - 1].completed = true }
        case .recall:
            guard var rc = recall else { break }
            rc.end = t
            rc.lastKey = lastKeyOnPage
            rc.totalMs = lastKeyOnPage.map { $0 - rc.start }
            rc.fields = fields.enumerated().compactMap { i, text in
                text.isEmpty ? nil : RecallField(field: i + 1, text: text,
                                                 matches: strings.strings.firstIndex(of: text).map { $0 + 1 })
            }
            rc.stringsRecalled = Array(Set(rc.fields.compactMap(\.matches))).sorted()
            recall = rc
        default:
            break
        }
        page = nil
    }
}
