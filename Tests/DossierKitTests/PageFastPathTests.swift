import Escaping
import Foundation
@testable import Render
import Testing
@testable import DossierKit

/// The byte-level short cuts of the page build against the reference code they skip.
@Suite struct PageFastPathTests {
    /// Random strings mixing ASCII, `%`, C0/C1 controls, DEL, `Â` (C3 82, whose second
    /// byte looks like a C1 lead-in) and other non-ASCII text.
    func randomStrings(seed: UInt64, count: Int) -> [String] {
        let pieces = ["a", "Z", "/", "%", "%2", "%20", "%C3%A9", "%zz", "#", "?", "\t", "\n", "\r", "\r\n", "\u{0}", "\u{1B}",
                      "\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\u{A0}", "Â", "é", "€", "😀", "e\u{301}", ".", "..", " "]
        var state = seed
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        return (0..<count).map { _ in (0..<(next() % 12)).map { _ in pieces[next() % pieces.count] }.joined() }
    }

    @Test func displayUTF8ByteScanAgreesWithTheScalarRule() {
        for s in randomStrings(seed: 1, count: 5000) {
            #expect(ControlCharacters.displayUTF8(s) == ControlCharacters.display(s), "\(s.debugDescription)")
        }
        // A bridged (non-native) string takes the copy path and gives the same answer.
        let bridged = NSString(string: "a\u{85}b") as String
        #expect(ControlCharacters.displayUTF8(bridged) == "a\u{FFFD}b")
    }

    /// `SitePaths.resolve` skips Foundation's percent-decoder for links without `%`:
    /// the decoder returns such a string unchanged.
    @Test func linksWithoutPercentDecodeToThemselves() {
        for s in randomStrings(seed: 2, count: 5000) where !s.contains("%") {
            #expect(s.removingPercentEncoding == s, "\(s.debugDescription)")
        }
        #expect(SitePaths.resolve("img%20one.png#f", from: "a/index.html") == "a/img one.png")
    }

    /// The byte walk of `SitePaths.resolve` against the Character walk, on random links
    /// from random pages (the byte walk only answers for ASCII without `%`).
    @Test func linkResolvingByBytesAgreesWithTheCharacterWalk() {
        let pieces = ["/", "//", ".", "..", "../", "./", "a", "b.html", "index.html", "#", "?", ":", "x:", "http:",
                      "%20", "é", "\r\n", " ", "p01/", "e\u{301}"]
        let pages = ["index.html", "a/index.html", "a/b/index.html", "pages/p00001/index.html", "x.html"]
        var state: UInt64 = 9
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var decided = 0
        for _ in 0..<20_000 {
            let link = (0..<(next() % 6)).map { _ in pieces[next() % pieces.count] }.joined()
            let page = pages[next() % pages.count]
            if let fast = SitePaths.resolveASCII(link, from: page) {
                decided += 1
                #expect(fast == SitePaths.resolveByCharacter(link, from: page), "\(link.debugDescription) on \(page)")
            }
        }
        #expect(decided > 5_000)
    }
}
