import Testing
@testable import RecallStudy

/// ``StudyContribution/sequences(of:)`` (a search of the sequences found so far) against
/// the dictionary of key lists it replaced: no timings, one, ties (the same keys under
/// two strings, the same keys as separate arrays), labels `é` as one scalar and as
/// e + U+0301 (equal `String`s: one sequence in both), CR LF, long labels, and random runs.
struct StudyContributionTwinTests {
    static func sequencesPlainly(_ timings: [ParticipantDetail.Timing]) -> [StudyContribution.Sequence] {
        var sequences: [StudyContribution.Sequence] = []
        var index: [Int: [[String]: Int]] = [:]
        for t in timings {
            if let i = index[t.string]?[t.keys] {
                sequences[i].count += 1
            } else {
                index[t.string, default: [:]][t.keys] = sequences.count
                sequences.append(StudyContribution.Sequence(string: t.string, keys: t.keys, count: 1))
            }
        }
        return sequences
    }

    static func timing(_ string: Int, _ keys: [String]) -> ParticipantDetail.Timing {
        ParticipantDetail.Timing(string: string, order: 1, keys: keys, hold: [], downDown: [], upDown: [])
    }

    @Test func sequencesAsTheDictionary() {
        let keySets: [[String]] = [[], ["a"], ["é"], ["e\u{301}"], ["a", "b"], ["b", "a"], ["\r\n"], ["\r", "\n"],
                                   ["space", "⌫"], [String(repeating: "k", count: 40)], ["a", "é", "a"]]
        var cases: [[ParticipantDetail.Timing]] = [
            [], [Self.timing(1, ["a"])],
            [Self.timing(1, ["a"]), Self.timing(2, ["a"]), Self.timing(1, ["a"])],
            [Self.timing(3, ["é"]), Self.timing(3, ["e\u{301}"])]]
        var rng = MedianTestRandom(seed: 4_548)
        for _ in 0..<2_000 {
            let n = rng.int(40)
            cases.append((0..<n).map { _ in
                // separate arrays with the same keys (not shared storage) as often as shared ones
                let keys = keySets[rng.int(keySets.count)]
                return Self.timing(1 + rng.int(10), rng.int(2) == 0 ? keys : keys.map { String($0) + "" })
            })
        }
        for timings in cases {
            #expect(StudyContribution.sequences(of: timings) == Self.sequencesPlainly(timings),
                    "\(timings.map(\.keys))")
        }
    }
}
