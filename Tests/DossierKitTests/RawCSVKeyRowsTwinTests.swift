import Foundation
@testable import RecallStudy
@testable import Render
import SplitMix64
import Testing
@testable import DossierKit

/// raw.csv's key rows with their constant parts as one piece each (`RawCSVKeyRows`)
/// against `rawFields`, the generic row they replace: every answer and action, every page
/// (and none), strings and fields at the edges (none, 0, 1, 10, 11, negative, `Int.max`,
/// `Int.min`), targets in and out of the set, participants and keys and texts from the
/// edge texts (empty, one byte, `é` as one scalar and as e + U+0301, CR LF, quotes,
/// formula leads, controls, 100,000 bytes), from buffers that must grow mid-row; each
/// case is two rows, the first writing columns B–D and the second copying them. Whole
/// files (the walk's remembered columns and answers included) are `RawCSVDirectTwinTests`'
/// and `RawCSVBufferTwinTests.rawCSVOfEdgeLogsAsItsRowTwin`'s.
struct RawCSVKeyRowsTwinTests {
    static let numbers: [Int?] = [nil, 0, 1, 2, 9, 10, 11, -1, 100, Int.max, Int.min]
    static let pages: [PageKind?] = [nil] + PageKind.allCases.map { $0 }
    static let times = [0, 1, -1, 37, 999_999, Int.max, Int.min]
    /// The edge texts but the 100,000-byte ones (those are `edgeTextPairsAsTheGenericRow`'s).
    static let short = RawCSVBufferTwinTests.edgeTexts.filter { $0.utf8.count < 100 }

    /// Two rows each way after a first record (the header's place), from a buffer of
    /// `capacity` bytes: the first key row writes columns B–D, the second (key and text
    /// swapped, the time one more) copies them; nil when both wrote the same bytes, else
    /// the two files.
    static func compare(
        participant: String, strings: StringSet, t: Int, string: Int?, page: PageKind?, field: Int?, key: String,
        entered: String, target: Int?, correct: Bool?, action: KeyAction, capacity: Int
    ) -> (Data, Data)? {
        let words = RawCSVWords(participant: participant, strings: strings)
        return words.encoded.withUnsafeBufferPointer { encoded in
            let rows = [(t, key, entered), (t &+ 1, entered, key)]
            var fast = RawCSVBuffer(capacity: capacity, start: Data("head\r\n".utf8))
            var prefix: RawCSVKeyRows.Prefix? = nil
            for (t, k, e) in rows {
                RawCSVKeyRows.write(&fast, t: t, prefix: &prefix, string: string, page: page, field: field, key: k,
                                    entered: e, target: target, correct: correct, action: action, words: words,
                                    encoded: encoded)
            }
            var plain = RawCSVBuffer(capacity: capacity, start: Data("head\r\n".utf8))
            for (t, k, e) in rows {
                plain.rawFields(t, string, page, field, k, e, target, correct, nil, nil, .key(action), words, encoded)
            }
            let (a, b) = (fast.data(), plain.data())
            return a == b ? nil : (a, b)
        }
    }

    /// Every answer, action, page, string, field and time, with short and edge texts.
    @Test func keyRowsAsTheGenericRow() throws {
        let sets = [StringSet.nistDesktop, try RecallRenderTests.edgeStrings()]
        var issues: [String] = []
        var compared = 0
        for (run, participant) in ["S001", "", "é", "e\u{301}", "a\r\nb", "=P,1", "a \"b\""].enumerated() {
            let strings = sets[run % 2]
            for page in Self.pages {
                for string in Self.numbers {
                    for field in Self.numbers {
                        for correct in [nil, true, false] as [Bool?] {
                            for action in [KeyAction.down, .up, .tap] {
                                let n = compared % Self.short.count
                                let key = Self.short[n]
                                let entered = Self.short[Self.short.count - 1 - n]
                                let t = Self.times[compared % Self.times.count]
                                let target = Self.numbers[(compared / 3) % Self.numbers.count]
                                if Self.compare(participant: participant, strings: strings, t: t, string: string,
                                                page: page, field: field, key: key, entered: entered,
                                                target: target, correct: correct, action: action,
                                                capacity: [0, 64, 4_096][compared % 3]) != nil {
                                    issues.append("\(participant.debugDescription) \(String(describing: page)) "
                                                  + "\(String(describing: string)) \(String(describing: field)) "
                                                  + "\(String(describing: correct)) \(action)")
                                }
                                compared += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(compared == 7 * 8 * 11 * 11 * 9)
        #expect(issues.isEmpty, "\(issues.count) rows differ: \(issues.prefix(6))")
    }

    /// Every pair of edge texts as key and entered text, each answer and action.
    @Test func edgeTextPairsAsTheGenericRow() {
        var issues = 0
        for key in RawCSVBufferTwinTests.edgeTexts {
            for entered in RawCSVBufferTwinTests.edgeTexts {
                for (i, correct) in ([nil, true, false] as [Bool?]).enumerated() {
                    let action = [KeyAction.down, .up, .tap][i]
                    if Self.compare(participant: "S1", strings: .nistDesktop, t: 4618, string: 3, page: .entry,
                                    field: 2, key: key, entered: entered, target: i == 0 ? nil : 3,
                                    correct: correct, action: action, capacity: 64) != nil {
                        issues += 1
                    }
                }
            }
        }
        #expect(issues == 0)
    }

    /// 3,000 random rows: random printable and edge texts, random numbers.
    @Test func randomKeyRowsAsTheGenericRow() {
        var g = SplitMix64(seed: 45)
        let pieces = ["a", "é", "e\u{301}", ",", "\"", "\r\n", " ", "=", "-", "'", "\u{01}", "😀", "xyz"]
        func text() -> String { (0..<Int(g.next() % 6)).map { _ in pieces[Int(g.next() % 13)] }.joined() }
        func number() -> Int? { g.next() % 4 == 0 ? nil : Int(Int64(bitPattern: g.next()) >> Int64(g.next() % 64)) }
        var issues = 0
        for _ in 0..<3_000 {
            let page = Self.pages[Int(g.next() % UInt64(Self.pages.count))]
            let correct: Bool? = [nil, true, false][Int(g.next() % 3)]
            let action = [KeyAction.down, .up, .tap][Int(g.next() % 3)]
            if Self.compare(participant: text(), strings: .nistDesktop, t: number() ?? 0, string: number(), page: page,
                            field: number(), key: text(), entered: text(), target: number().map { $0 % 12 },
                            correct: correct, action: action, capacity: Int(g.next() % 200)) != nil {
                issues += 1
            }
        }
        #expect(issues == 0)
    }
}
