import Foundation
@testable import RecallStudy
@testable import Render
import SplitMix64
import Testing
@testable import DossierKit

/// raw.csv's rows written straight into the file's buffer (`RawCSVBuffer`) against their
/// plain twins: each field against `CSVWriter`'s method of the same name, and whole
/// files (`RecallRender.rawCSV`) against `RecallRender.rawCSVByRows`, on the edge cases
/// of docs/perf-study.md's house rules — empty, one byte, `é` as one scalar and as e +
/// U+0301, CR LF, texts needing quotes or a `'`, control characters, and fields far
/// larger than the buffer (it must grow mid-record).
struct RawCSVBufferTwinTests {
    static let huge = String(repeating: "x", count: 100_000)
    static let edgeTexts = [
        "", "a", "é", "e\u{301}", "\r\n", "a\r\nb", "\r", "\n", " ", ",", "\"", "=1", "+", "-", "@", "\t", "'",
        "\u{01}", "\u{7F}", "c1\u{85}", "\u{FEFF}", "😀", "日本語", "True", "a b", " lead", "trail ",
        "exactly sixteen!", "fifteen bytes..", "seventeen bytes..", huge, huge + ",", "=" + huge, huge + "é",
    ]
    static let ints = [0, 1, -1, 9, 10, 99, 100, -100, 999_999, 1_000_000, Int.max, Int.min, Int.max - 1, Int.min + 1]
        + (1...18).flatMap { k -> [Int] in let p = (0..<k).reduce(1) { a, _ in a * 10 }; return [p - 1, p, p + 1, -p] }
    static let doubles: [Double] = [0, -0.0, 1, -1, 0.5, 0.25, 0.125, 1e300, 5e-324, .nan, .infinity, -.infinity,
                                    0.1 + 0.2]

    /// Both writers, one field each way, in the same order.
    static func written(_ fields: (inout RawCSVBuffer) -> Void, _ twin: (inout CSVWriter) -> Void,
                        capacity: Int) -> (Data, Data) {
        var b = RawCSVBuffer(capacity: capacity, start: Data("head\r\n".utf8))
        fields(&b)
        var w = CSVWriter()
        w.appendToField(0x68); w.appendToField(0x65); w.appendToField(0x61); w.appendToField(0x64)
        w.endRecord()
        twin(&w)
        return (b.data(), w.data)
    }

    /// Each field of `RawCSVBuffer` against `CSVWriter`'s, alone, first and later in a
    /// record, from a buffer of 0, 64 and 4,096 bytes (the first two grow on nearly
    /// every field).
    @Test func fieldsAsTheWritersFields() {
        var issues: [String] = []
        for capacity in [0, 64, 4_096] {
            for t in Self.edgeTexts {
                let (a, b) = Self.written(
                    { $0.textField(t); $0.textField(t); $0.emptyField(); $0.textField(t); $0.endRecord() },
                    { $0.textField(t); $0.textField(t); $0.emptyField(); $0.textField(t); $0.endRecord() },
                    capacity: capacity)
                if a != b { issues.append("text \(t.prefix(20).debugDescription) at \(capacity)") }
                let (c, d) = Self.written(
                    { w in
                        let bytes = Array(t.utf8)
                        bytes.withUnsafeBufferPointer { w.encodedField($0); w.encodedField($0) }
                        w.endRecord() },
                    { w in
                        let bytes = Array(t.utf8)
                        bytes.withUnsafeBufferPointer { w.encodedField($0); w.encodedField($0) }
                        w.endRecord() },
                    capacity: capacity)
                if c != d { issues.append("encoded \(t.prefix(20).debugDescription) at \(capacity)") }
            }
            for i in Self.ints {
                let (a, b) = Self.written(
                    { $0.numberField(i); $0.plainField("Entry"); $0.appendToField(0x20); $0.appendDigits(i)
                        $0.numberField(i); $0.endRecord() },
                    { $0.numberField(i); $0.plainField("Entry"); $0.appendToField(0x20); $0.appendDigits(i)
                        $0.numberField(i); $0.endRecord() },
                    capacity: capacity)
                if a != b { issues.append("int \(i) at \(capacity)") }
            }
            for d in Self.doubles {
                let (a, b) = Self.written({ $0.emptyField(); $0.numberField(d); $0.endRecord() },
                                          { $0.emptyField(); $0.numberField(d); $0.endRecord() }, capacity: capacity)
                if a != b { issues.append("double \(d) at \(capacity)") }
            }
        }
        #expect(issues.isEmpty, "\(issues.count) fields differ: \(issues.prefix(8))")
    }

    /// A log whose keys, texts, touches, field lists and participant are the edge texts.
    static func edgeLog(participant: String, texts: [String], strings: StringSet) -> SessionLog {
        var events: [SessionEvent] = []
        var t = 0
        func add(_ k: EventKind) { t += 37; events.append(SessionEvent(t: t, line: events.count + 2, kind: k)) }
        add(.page(.welcome, string: nil))
        add(.key(label: "x", action: .tap, text: texts.first, field: nil))
        for (n, text) in texts.enumerated() {
            let number = 1 + n % 10
            add(.page(.memorize, string: number))
            add(.page(.entry, string: number))
            add(.focus(field: 1 + n % 10))
            add(.key(label: text, action: .down, text: text, field: nil))
            add(.key(label: text, action: .up, text: nil, field: 1 + (n + 3) % 10))
            add(.key(label: "k", action: .tap, text: strings[number: number], field: 2))
            add(.touch(x: Double(n) / 3, y: -0.0, target: text))
            add(.button(.next, verifyOK: n % 2 == 0))
            add(.fields([text, "", strings[number: number]] + Array(repeating: text, count: 7)))
        }
        add(.page(.recall, string: nil))
        for text in texts { add(.key(label: text, action: .tap, text: text, field: 1)) }
        add(.key(label: "k", action: .tap, text: strings[number: 3], field: 2))
        add(.page(.thankyou, string: nil))
        add(.close)
        return SessionLog(participant: participant, declaredStrings: [], events: events, source: .native,
                          file: "edge.jsonl")
    }

    /// Whole raw.csv files, with and without the byte-order mark, against `rawCSVByRows`
    /// (the participant is at most 12 characters, as the analyser requires; the huge
    /// texts are the log's).
    @Test func rawCSVOfEdgeLogsAsItsRowTwin() throws {
        let sets = [StringSet.nistDesktop, try RecallRenderTests.edgeStrings()]
        var compared = 0
        for (run, participant) in ["S001", "a", "é", "e\u{301}", "a\r\nb", "=P,1", "a \"b\"", "x,日本語😀"].enumerated() {
            let strings = sets[run % 2]
            let texts = run % 2 == 0 ? Self.edgeTexts : Self.edgeTexts.reversed()
            let log = Self.edgeLog(participant: participant, texts: texts, strings: strings)
            let result = try Analyzer.analyze(log, strings: strings)
            for bom in [false, true] {
                let direct = RecallRender.rawCSV(log: log, result: result, strings: strings, bom: bom)
                let byRows = RecallRender.rawCSVByRows(log: log, result: result, strings: strings, bom: bom)
                #expect(direct == byRows, "participant \(participant.prefix(20).debugDescription), bom \(bom)")
                compared += 1
            }
        }
        #expect(compared == 16)
    }
}
