import Testing
@testable import RecallStudy
import SplitMix64

/// `StudyStats.editDistance` (bytes for two ASCII texts without CR) against its plain
/// twin `editDistanceByCharacters` (docs/perf-study.md, "Issue #45, the study's data
/// path written from bytes"): random texts from pieces that are one byte, CR, LF, CR LF
/// (one Character of two bytes), non-ASCII, a combining mark, an emoji and empty texts,
/// of lengths 0–24, each pair both ways.
@Test func editDistanceAsByCharacters() {
    let pieces = [
        "a", "b", "c", "A", "0", " ", "'", "\"", ",", "\t", "\n", "\r", "\r\n", "\u{7F}", "é", "e\u{301}", "😀",
        "日", "\u{0}",
    ]
    var g = SplitMix64(seed: 2_660)
    func text(_ asciiOnly: Bool) -> String {
        let usable = asciiOnly ? Array(pieces.prefix(11)) : pieces
        return (0..<Int(g.next() % 25)).map { _ in usable[Int(g.next() % UInt64(usable.count))] }.joined()
    }
    var issues = 0
    var viaBytes = 0
    for n in 0..<30_000 {
        let a = text(n % 3 != 0), b = text(n % 5 != 0)
        for (x, y) in [(a, b), (b, a)] {
            if StudyStats.editDistance(x, y) != StudyStats.editDistanceByCharacters(x, y) { issues += 1 }
        }
        var x = a, y = b
        if x.withUTF8({ u in y.withUTF8({ v in StudyStats.editDistanceOfPlainBytes(u, v) }) }) != nil { viaBytes += 1 }
    }
    #expect(issues == 0)
    #expect(viaBytes > 10_000)   // the byte path was taken, and not for every pair
    #expect(viaBytes < 30_000)
}
