import Testing
@testable import Render

/// `ByteSearch.find` (the table pass's and the spliced pages' search) against a plain
/// search, on random texts made of the needle's own bytes, so that partial matches,
/// overlaps and matches at either end are common.
@Suite struct ByteSearchTests {
    @Test func findAgreesWithAPlainSearch() {
        var rng = SystemRandomNumberGenerator()
        for needle in ["<!--dossier-splice-->", "ab", "aab", "<", "<table", "</table>"] {
            let n = Array(needle.utf8)
            let alphabet = Array(Set(n)) + [UInt8(ascii: "z")]
            for _ in 0..<400 {
                let count = Int.random(in: 0...60, using: &rng)
                let bytes = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
                let from = Int.random(in: -2...count + 1, using: &rng)
                var expected: Int?
                var i = max(0, from)
                while expected == nil, i + n.count <= count {
                    if Array(bytes[i..<i + n.count]) == n { expected = i }
                    i += 1
                }
                let got = bytes.withUnsafeBufferPointer { ByteSearch.find(needle, in: $0, from: from) }
                #expect(got == expected, "\(needle) in \(bytes) from \(from)")
            }
        }
    }
}
