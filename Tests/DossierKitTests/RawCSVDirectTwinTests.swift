import Foundation
@testable import RecallStudy
@testable import Render
import SplitMix64
import Testing
@testable import DossierKit

/// raw.csv written straight from the events (`RawCSVDirect`, what `RecallRender.rawCSV`
/// does) against its plain twins: `RecallRender.rawCSVByRows` (the rows of
/// `RawData.forEachRow`) and the tests' `ReferenceRawData` (round five's rows of
/// strings), on random logs made as event lists — texts with quotes, commas, CR and LF,
/// control characters, non-ASCII, formula leads, spaces at either end, empty and long
/// (beyond a small string's 15 bytes); touches at huge, fractional, negative-zero,
/// infinite and NaN coordinates (written as `RawData.fmtCoord` spells them); keys with
/// and without a field, texts equal to a target, events after Close.
struct RawCSVDirectTwinTests {
    static let texts = [
        "", "a", " a", "a ", "a,b", "say \"hi\"", "line\nbreak", "cr\rlf", "tab\tin", "\u{01}ctl", "del\u{7F}",
        "c1\u{85}x", "=SUM(1)", "+1", "-2", "@me", "\tlead", "naïve", "日本語", "😀x", "Entry 3",
        "a much longer text than fifteen bytes", "\u{FEFF}bom", "ÂÂ", "x,y\"z\n", "True",
    ]

    static let coords: [Double] = [
        0, -0.0, 1, -1, 147, 0.5, -2.25, 1e15, -1e15, 1e15 - 1, 1e300, .infinity, -.infinity, .nan, 1.0 / 3, 5e-324,
    ]

    /// A random session of `count` events over `strings`' ten strings.
    static func randomLog(_ g: inout SplitMix64, strings: StringSet, count: Int, participant: String) -> SessionLog {
        func pick<T>(_ xs: [T]) -> T { xs[Int(g.next() % UInt64(xs.count))] }
        func chance(_ n: UInt64) -> Bool { g.next() % n == 0 }
        var events: [SessionEvent] = []
        var t = Int(g.next() % 1000)
        var page: PageKind? = nil
        for line in 2..<(count + 2) {
            t += Int(g.next() % 500)
            let kind: EventKind
            switch g.next() % 20 {
            case 0, 1:
                let p = pick(PageKind.allCases)
                page = p
                kind = .page(p, string: p.hasString ? 1 + Int(g.next() % 10) : nil)
            case 2: kind = .focus(field: 1 + Int(g.next() % UInt64(max(1, page?.fieldCount ?? 1))))
            case 3: kind = .touch(x: pick(coords), y: pick(coords), target: chance(2) ? nil : pick(texts + ["next"]))
            case 4: kind = .button(pick(ButtonKind.allCases), verifyOK: chance(2) ? nil : chance(2))
            case 5: kind = .fields((0..<(page?.fieldCount ?? 1)).map { _ in pick(texts) })
            case 6 where chance(8): kind = .close
            default:
                let action = pick([KeyAction.down, .up, .tap])
                let text: String? = action == .up && chance(2) ? nil
                    : chance(4) ? strings[number: 1 + Int(g.next() % 10)] : pick(texts)
                let fields = max(1, page?.fieldCount ?? 1)
                kind = .key(label: pick(texts + ["⌫", "space", "x"]), action: action, text: text,
                            field: chance(2) ? nil : 1 + Int(g.next() % UInt64(fields)))
            }
            events.append(SessionEvent(t: t, line: line, kind: kind))
        }
        return SessionLog(participant: participant, declaredStrings: [], events: events, source: .native,
                          file: "random.jsonl")
    }

    @Test func directRawCSVAsItsRowTwins() throws {
        var g = SplitMix64(seed: 4_545)
        let sets = [StringSet.nistDesktop, try RecallRenderTests.edgeStrings()]
        var compared = 0
        for run in 0..<600 {
            let strings = sets[run % 2]
            let participant = ["S001", "=P,1", "naïve", "a \"b\""][run % 4]
            let log = Self.randomLog(&g, strings: strings, count: 1 + run % 150, participant: participant)
            guard let result = try? Analyzer.analyze(log, strings: strings) else { continue }
            for bom in [false, true] {
                let direct = RecallRender.rawCSV(log: log, result: result, strings: strings, bom: bom)
                let byRows = RecallRender.rawCSVByRows(log: log, result: result, strings: strings, bom: bom)
                #expect(direct == byRows, "run \(run), bom \(bom)")
            }
            // The reference written field by field (no record at once anywhere on its path).
            let table = ReferenceRawData.table(log: log, result: result, strings: strings)
            var plain = CSVWriter(header: table.header)
            for row in table.rows { plain.tableRowFieldByField(row) }
            let reference = plain.data
            #expect(RecallRender.rawCSV(log: log, result: result, strings: strings) == reference, "run \(run)")
            compared += 1
        }
        #expect(compared > 500)
    }

    /// A table row written as one record (`tableRow`) against the same row field by
    /// field (`tableRowFieldByField`): random rows of texts (the pool above), flags,
    /// integers to `Int.min`/`Int.max`, and doubles — whole, hundredths, thousandths,
    /// ±0, NaN, ±∞, 2⁵³ ± 1, huge, tiny and random bit patterns — short and long enough
    /// not to fit the record (the field-by-field path).
    @Test func tableRowAsFieldByField() {
        var g = SplitMix64(seed: 1_024)
        func double() -> Double {
            let k = Double(Int64(bitPattern: g.next()) % 20_000_000_000)
            switch g.next() % 8 {
            case 0: return k / 1000
            case 1: return k / 100
            case 2: return k
            case 3: return Double(bitPattern: g.next())
            default:
                return [0, -0.0, .nan, -.nan, .infinity, -.infinity, 9_007_199_254_740_992, 9_007_199_254_740_993,
                        -9_007_199_254_740_991, 1e300, 5e-324, 0.001, -0.01, 1e7, 1e7 - 0.001, 0.1 + 0.2,
                        1.0 / 3][Int(g.next() % 17)]
            }
        }
        func cell() -> TableCell {
            switch g.next() % 5 {
            case 0: return .text(Self.texts[Int(g.next() % UInt64(Self.texts.count))])
            case 1: return .flag(g.next() % 2 == 0)
            case 2: return .int([Int.min, Int.max, 0, -1, Int(bitPattern: UInt(g.next()))][Int(g.next() % 5)])
            case 3: return .number(double())
            default: return .empty
            }
        }
        var issues = 0
        for n in 0..<40_000 {
            let row = (0..<Int(g.next() % (n % 10 == 0 ? 120 : 24))).map { _ in cell() }
            var a = CSVWriter(), b = CSVWriter()
            a.tableRow(row); a.tableRow(row)
            b.tableRowFieldByField(row); b.tableRowFieldByField(row)
            if a.text != b.text { issues += 1 }
        }
        #expect(issues == 0)
    }
}
