import Foundation
import RecallStudy
@testable import Render
import Testing
@testable import DossierKit

/// raw.csv as round six writes it (typed rows, repeating fields encoded once:
/// `RawCSVWords`) against round five's rows of strings, kept below as the reference
/// (docs/perf-study.md, "Round six, data path").
struct RecallRawCSVFastPathTests {
    @Test func rawCSVAsRoundFivesRowsOfStrings() throws {
        let sets = [StringSet.nistDesktop, try RecallRenderTests.edgeStrings()]
        var sessions = try RecallRenderTests.simulatedSessions(sets, seed: 60, count: 4)
        for strings in sets {
            let log = try NativeLog.parse(Data(Self.edgeLog(strings).utf8), file: "edge.jsonl")
            sessions.append(("hand-made", log, try Analyzer.analyze(log, strings: strings), strings))
        }
        for s in sessions {
            let written = RecallRender.rawCSV(log: s.log, result: s.result, strings: s.strings)
            let reference = RecallRender.csv(ReferenceRawData.table(log: s.log, result: s.result, strings: s.strings))
            #expect(written == reference, "\(s.label)")
        }
    }

    /// Every page title and event word is what its text says, and a plain field.
    @Test func fixedWordsAreTheirTexts() {
        for p in PageKind.allCases {
            #expect(CSVWriter.EncodedField(p.title).bytes == Array(p.title.utf8))
        }
        let events: [RawEvent] = [.page, .focus, .key(.down), .key(.up), .key(.tap), .close, .pageTurn]
        for e in events {
            #expect(RawCSVWords.event(e)?.description == e.text)
            #expect(CSVWriter.EncodedField(e.text).bytes == Array(e.text.utf8))
        }
        #expect(
            RawCSVWords.event(.touch(target: nil)) == nil && RawCSVWords.event(.button(.done, verifyOK: nil)) == nil)
    }

    /// A session with what the simulator never writes: touches with and without targets
    /// (one needing quotes), Verify results, keys without a field, a focus on another
    /// field, the Recall page with matches and misses, events after Close.
    static func edgeLog(_ strings: StringSet) -> String {
        func q(_ s: String) -> String {
            var out = "\""
            for c in s.unicodeScalars {
                switch c {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\t": out += "\\t"
                default: out.unicodeScalars.append(c)
                }
            }
            return out + "\""
        }
        let s1 = strings[number: 1], s2 = strings[number: 2]
        let list = strings.strings.map(q).joined(separator: ",")
        var lines = [
            "{\"type\":\"session\",\"format\":\"dossier-recall/1\",\"participant\":\"=P,1\",\"strings\":[\(list)]}",
            "{\"t\":10,\"type\":\"page\",\"page\":\"welcome\"}",
            "{\"t\":20,\"type\":\"touch\",\"x\":1.5,\"y\":-2}",
            "{\"t\":30,\"type\":\"touch\",\"x\":3,\"y\":4,\"target\":\"a, \\\"b\\\"\"}",
            "{\"t\":40,\"type\":\"button\",\"button\":\"begin\"}",
            "{\"t\":50,\"type\":\"page\",\"page\":\"memorize\",\"string\":1}",
            "{\"t\":60,\"type\":\"key\",\"key\":\"x\",\"action\":\"tap\",\"text\":\"x\"}",
            "{\"t\":70,\"type\":\"fields\",\"values\":[\"x\"]}",
            "{\"t\":80,\"type\":\"page\",\"page\":\"verify\",\"string\":1}",
            "{\"t\":90,\"type\":\"focus\",\"field\":1}",
            "{\"t\":100,\"type\":\"key\",\"key\":\"a\",\"action\":\"down\",\"text\":\(q(s1))}",
            "{\"t\":110,\"type\":\"key\",\"key\":\"a\",\"action\":\"up\"}",
            "{\"t\":120,\"type\":\"button\",\"button\":\"verify\",\"result\":\"ok\"}",
            "{\"t\":125,\"type\":\"button\",\"button\":\"verify\",\"result\":\"not-ok\"}",
            "{\"t\":130,\"type\":\"button\",\"button\":\"start-test\"}",
            "{\"t\":140,\"type\":\"page\",\"page\":\"entry\",\"string\":1}",
            "{\"t\":150,\"type\":\"focus\",\"field\":3}",
            "{\"t\":160,\"type\":\"key\",\"key\":\"=\",\"action\":\"down\",\"text\":\"=1\"}",
            "{\"t\":165,\"type\":\"key\",\"key\":\"=\",\"action\":\"up\"}",
            "{\"t\":170,\"type\":\"key\",\"key\":\"b\",\"action\":\"down\",\"text\":\(q(s1)),\"field\":10}",
            "{\"t\":175,\"type\":\"key\",\"key\":\"b\",\"action\":\"up\",\"field\":10}",
            "{\"t\":180,\"type\":\"key\",\"key\":\"⌫\",\"action\":\"tap\",\"text\":\"\"}",
            "{\"t\":190,\"type\":\"button\",\"button\":\"done\"}",
            "{\"t\":200,\"type\":\"page\",\"page\":\"recall\"}",
            "{\"t\":210,\"type\":\"key\",\"key\":\"q\",\"action\":\"tap\",\"text\":\(q(s2))}",
            "{\"t\":220,\"type\":\"key\",\"key\":\"q\",\"action\":\"tap\",\"text\":\"nope, \\\"x\\\"\",\"field\":2}",
            // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
            "{\"t\":230,\"type\":\"fields\",\"values\":[\(q(s2)),\"nope\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\(q(s1))]}",
            // END DATA TABLE
            "{\"t\":240,\"type\":\"page\",\"page\":\"thankyou\"}",
            "{\"t\":250,\"type\":\"close\"}",
            "{\"t\":260,\"type\":\"touch\",\"x\":5,\"y\":6}",
        ]
        lines.append("")
        return lines.joined(separator: "\n")
    }
}

/// The plain twin of `RawData.forEachRow` and `RawRow.cells` (docs/recall-section.md's
/// raw.csv read off the log event by event): every row's phase, target and event spelt as
/// strings, where the fast path keeps typed rows whose repeating fields are encoded once.
enum ReferenceRawData {
    struct Row {
        var time: Int
        var participant: String
        var string: Int?
        var phase: String
        var key: String? = nil
        var entered: String? = nil
        var target: String
        var correct: Bool? = nil
        var touch: String? = nil
        var fields: String? = nil
        var event: String

        var cells: [TableCell] {
            func text(_ s: String?) -> TableCell { s.map { .text($0) } ?? .empty }
            return [
                .int(time), .text(participant), string.map { .int($0) } ?? .empty, .text(phase), text(key),
                text(entered),
                .text(target), correct.map { .text($0 ? "True" : "False") } ?? .empty, text(touch), text(fields),
                .text(event)
            ]
        }
    }

    static func table(log: SessionLog, result: ParticipantResult, strings: StringSet) -> Table {
        var rows: [[TableCell]] = []
        forEachRow(log: log, result: result, strings: strings) { rows.append($0.cells) }
        return Table(header: RawData.header, rows: rows)
    }

    static func fmtCoord(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }

    static func forEachRow(log: SessionLog, result: ParticipantResult, strings: StringSet, _ body: (Row) -> Void) {
        var reader = Reader(participant: log.participant, strings: strings, turns: result.pageTurns)
        var rows: [Row] = []
        for e in log.events {
            rows += reader.rows(for: e)
            if case .close = e.kind { break }      // nothing after Close is a row
        }
        rows += reader.leavePage()
        rows.forEach(body)
    }

    /// The walk written plainly, as a reader of the log would do it by hand: it remembers
    /// the open page, its string, the focused field and each field's text, and answers
    /// each event with the rows it gives (a page turn's rows when a page is left).
    struct Reader {
        let participant: String
        let strings: StringSet
        let turns: [PageTurn]
        var page: PageKind? = nil
        var string: Int? = nil
        var focused: Int? = nil
        var texts: [Int: String] = [:]
        var turnsTaken = 0

        /// Column D: the page's title, with the field number on Entry and Recall pages.
        func phase(_ field: Int?) -> String {
            guard let page else { return "" }
            guard page == .entry || page == .recall, let field else { return page.title }
            return page.title + " " + String(field)
        }

        /// Column G: the string the page shows.
        var target: String { string.map { strings[number: $0] } ?? "" }

        /// Column G on a row with text: on Recall, the string the text is (if any).
        func target(of text: String) -> String {
            guard page == .recall else { return target }
            return strings.strings.contains(text) ? text : ""
        }

        /// Column H: on Recall, whether the text is any of the strings; elsewhere whether
        /// it is the page's string (none without one).
        func correct(_ text: String) -> Bool? {
            if page == .recall { return strings.strings.contains(text) }
            return string == nil ? nil : text == target
        }

        func plainRow(_ t: Int, _ phase: String, _ target: String, _ event: String) -> Row {
            Row(time: t, participant: participant, string: string, phase: phase, target: target, event: event)
        }

        /// The rows of the page being left: one a field of its page turn, if it has fields.
        mutating func leavePage() -> [Row] {
            guard let page, page != .welcome, page.fieldCount > 0, turnsTaken < turns.count else { return [] }
            let turn = turns[turnsTaken]
            turnsTaken += 1
            var out: [Row] = []
            for (i, text) in turn.fields.enumerated() {
                let field: Int? = page.fieldCount > 1 ? i + 1 : nil
                var r = plainRow(turn.t, phase(field), target(of: text), "page-turn")
                r.entered = text
                r.correct = correct(text)
                r.fields = text
                out.append(r)
            }
            return out
        }

        mutating func rows(for e: SessionEvent) -> [Row] {
            switch e.kind {
            case .page(let p, let s):
                let left = leavePage()
                (page, string, focused, texts) = (p, s, nil, [:])
                return left + [plainRow(e.t, p.title, target, "page")]
            case .focus(let f):
                focused = f
                return [plainRow(e.t, phase(f), target, "focus")]
            case .key(let label, let action, let newText, let field):
                let f = field ?? focused ?? 1
                if action != .up { focused = f }
                let text = newText ?? texts[f, default: ""]
                texts[f] = text
                var r = plainRow(e.t, phase(f), target(of: text), action.rawValue)
                r.key = label
                r.entered = text
                r.correct = correct(text)
                return [r]
            case .touch(let x, let y, let on):
                var r = plainRow(e.t, phase(focused), target, on == nil ? "touch" : "touch " + on!)
                r.touch = fmtCoord(x) + "," + fmtCoord(y)
                return [r]
            case .button(let b, let ok):
                let result = ok == nil ? "" : (ok! ? " OK" : " Not OK")
                return [plainRow(e.t, phase(focused), target, "button " + b.rawValue + result)]
            case .fields:
                return []
            case .close:
                return [plainRow(e.t, phase(nil), target, "close")]
            }
        }
    }
}
