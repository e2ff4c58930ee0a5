import Foundation
import Testing
@testable import DossierKit

/// `BuildContext.find`, which locates the splice marker in a rendered page, against the
/// standard library's search on random pages made of the marker's own bytes (so partial
/// matches, overlaps and matches at either end are common).
@Suite struct SpliceFindTests {
    @Test func findAgreesWithTheStandardSearch() {
        var rng = SystemRandomNumberGenerator()
        let needles = [PageSplice.marker, "ab", "aab", "<", "<!--x-->"]
        for needle in needles {
            let alphabet = Array(Set(needle.utf8)) + [UInt8(ascii: "z")]
            for _ in 0..<400 {
                let count = Int.random(in: 0...60, using: &rng)
                let bytes = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
                let from = Int.random(in: 0...max(0, count), using: &rng)
                let expected: Int? = {
                    let n = Array(needle.utf8)
                    guard n.count <= count else { return nil }
                    for i in stride(from: from, through: count - n.count, by: 1) where Array(bytes[i..<i + n.count]) == n { return i }
                    return nil
                }()
                let got = bytes.withUnsafeBufferPointer { BuildContext.find(needle, in: $0, from: from) }
                #expect(got == expected, "needle \(needle) in \(bytes) from \(from)")
            }
        }
    }
}
