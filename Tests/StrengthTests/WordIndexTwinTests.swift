// The word index built from the shipped lists' bytes (`WordIndex.fromASCIILines`, the fast
// path every password check starts with) against its straightforward twin
// `WordIndex(lists:)`: the lists split into Strings, a dictionary of code-point arrays,
// sorted by code points.
@testable import Strength
import SplitMix64
import Testing

struct WordIndexTwinTests {
    /// The twin as the estimator built it before the fast path: each text split at "\n"
    /// (empty lines left out) into Strings.
    static func straightforward(_ texts: [[UInt8]]) -> WordIndex {
        WordIndex(lists: texts.map(WordIndex.lines))
    }

    @Test func theShippedListsGiveTheSameIndexBothWays() {
        let texts = StrengthData.listNames.map { [UInt8](StrengthData.resource("zxcvbn-\($0).txt")) }
        #expect(texts.allSatisfy { $0.count > 1000 })
        let fast = WordIndex.fromASCIILines(texts)
        #expect(fast.count > 50_000)
        #expect(fast == Self.straightforward(texts))
        #expect(fast == StrengthData.shared.words)
    }

    /// Random lists from a small alphabet, so that words repeat within a list and across
    /// lists, one is often a prefix of another, and lines are empty or blank-ish.
    @Test func randomListsGiveTheSameIndexBothWays() {
        var rng = SplitMix64(seed: 45)
        let alphabet: [UInt8] = Array("ab z0~\n\n".utf8) + [0x7F, 0x01]
        for round in 0..<400 {
            let lists = (0..<Int(rng.next() % 5)).map { _ in
                (0..<Int(rng.next() % 80)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            }
            #expect(WordIndex.fromASCIILines(lists) == Self.straightforward(lists), "round \(round)")
        }
    }

    /// Text that is not plain ASCII lines (UTF-8, a CRLF file, invalid bytes) takes the
    /// straightforward path, so it is the same index by construction; checked all the same.
    @Test func otherTextGivesTheSameIndexBothWays() {
        let texts: [[UInt8]] = [Array("é\ne\nz\né\n".utf8), Array("a\r\nb\r\na\n".utf8), [0x61, 0xFF, 0x0A, 0x61]]
        for t in texts { #expect(WordIndex.fromASCIILines([t, t]) == Self.straightforward([t, t])) }
    }

    /// The fast index finds what the twin finds, word by word, in a password made of words.
    @Test func scanningFindsTheSameWordsAndRanks() {
        let texts = [Array("pass\npassword\nword\npass\n".utf8), Array("word\nor\n\nsword\n".utf8)]
        let text = Array("xpasswordsx".unicodeScalars.map(\.value))
        func hits(_ index: WordIndex) -> [String] {
            (0..<text.count).flatMap { i in
                var out: [String] = []
                index.scan(text, from: i) { j, e in out += e.map { "\(i)-\(j):\($0.list)/\($0.rank)" } }
                return out
            }
        }
        let found = hits(WordIndex.fromASCIILines(texts))
        #expect(found == hits(Self.straightforward(texts)))
        #expect(found.contains("1-4:0/4"))  // "pass" listed twice in list 0 keeps its last rank
        #expect(found.contains("5-8:0/3") && found.contains("5-8:1/1") && found.contains("4-8:1/3"))
    }
}
