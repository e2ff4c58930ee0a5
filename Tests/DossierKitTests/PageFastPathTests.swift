@testable import Escaping
import Foundation
@testable import Render
import Testing
@testable import DossierKit

/// The byte-level short cuts of the page build against the reference code they skip.
@Suite struct PageFastPathTests {
    /// Random strings mixing ASCII, `%`, C0/C1 controls, DEL, `Â` (C3 82, whose second
    /// byte looks like a C1 lead-in) and other non-ASCII text.
    func randomStrings(seed: UInt64, count: Int) -> [String] {
        let pieces = [
            "a", "Z", "/", "%", "%2", "%20", "%C3%A9", "%zz", "#", "?", "\t", "\n", "\r", "\r\n", "\u{0}", "\u{1B}",
            "\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\u{A0}", "Â", "é", "€", "😀", "e\u{301}", ".", "..", " "
        ]
        var random = SeededNumbers(state: seed)
        return (0..<count).map { _ in random.soup(pieces, fewerThan: 12) }
    }

    @Test func displayUTF8ByteScanAgreesWithTheScalarRule() {
        for s in randomStrings(seed: 1, count: 5000) {
            #expect(ControlCharacters.displayUTF8(s) == ControlCharacters.display(s), "\(s.debugDescription)")
        }
        // A bridged (non-native) string takes the copy path and gives the same answer.
        let bridged = NSString(string: "a\u{85}b") as String
        #expect(ControlCharacters.displayUTF8(bridged) == "a\u{FFFD}b")
    }

    /// The eight-bytes-at-a-time scan against the byte rule, with every interesting
    /// byte (C0, TAB/LF/CR, DEL, 0xC2 and the bytes around the C1 range) at every
    /// position of a word and across word boundaries.
    @Test func wordScanForControlsAgreesWithTheByteRule() {
        let interesting: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1F, 0x20, 0x41, 0x42, 0x7E, 0x7F, 0x80,
                                    0x85, 0x89, 0x8A, 0x8D, 0x9F, 0xA0, 0xBF, 0xC2, 0xC3, 0xFF]
        var random = SeededNumbers(state: 3)
        var checked = 0, found = 0
        for length in 0..<40 {
            for _ in 0..<300 {
                // Mostly ASCII letters, a few interesting bytes anywhere.
                let bytes: [UInt8] = (0..<length).map { _ in
                    random.next() % 6 == 0 ? interesting[random.next() % interesting.count] : 0x61
                }
                let byWords = bytes.withUnsafeBufferPointer { ControlCharacters.hasDisplayControlByWords($0) }
                let byBytes = ControlCharacters.hasDisplayControl(bytes)
                #expect(byWords == byBytes, "\(bytes)")
                checked += 1
                if byBytes { found += 1 }
            }
        }
        // A C1 control split across two whole words: C2 as byte 7, 85 as byte 8.
        let split: [UInt8] = [UInt8](repeating: 0x61, count: 7) + [0xC2, 0x85] + [UInt8](repeating: 0x61, count: 7)
        #expect(split.withUnsafeBufferPointer { ControlCharacters.hasDisplayControlByWords($0) })
        #expect(found > checked / 10 && found < checked)   // both answers were exercised
    }

    /// The word scan's per-byte masks against a test of each byte, on random words with
    /// the bytes next to each limit (a borrow or carry between bytes would show here).
    @Test func wordMasksAreExactForEveryByte() {
        let near: [UInt8] = [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0x81, 0x89, 0x8A,
                             0xA0, 0xC1, 0xC2, 0xC3, 0xFF]
        var random = SeededNumbers(state: 12)
        for _ in 0..<20_000 {
            let bytes = (0..<8).map { _ in
                random.next() % 3 == 0 ? UInt8(random.next() % 256) : near[random.next() % near.count]
            }
            let w = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            func expected(_ test: (UInt8) -> Bool) -> UInt64 {
                bytes.enumerated().reduce(UInt64(0)) { $0 | (test($1.element) ? 0x80 << (8 * UInt64($1.offset)) : 0) }
            }
            for limit: UInt8 in [0x01, 0x20] {
                #expect(ControlCharacters.byteMask(w, below: limit) == expected { $0 < limit }, "\(bytes)")
            }
            for byte: UInt8 in [0x09, 0x0A, 0x0D, 0x7F, 0xC2] {
                #expect(ControlCharacters.byteMask(w, equalTo: byte) == expected { $0 == byte }, "\(bytes)")
            }
        }
    }

    /// `lastHeading` with one backward pass for `</hN>` against the pass per level it
    /// replaced (kept here as the reference), on random heading soup.
    @Test func lastHeadingOnePassAgreesWithAPassPerLevel() {
        func reference(_ b: [UInt8]) -> String? {
            var best: (Int, Int)? = nil
            for level in 1...6 {
                if let e = TableMarkup.findLast(b, "</h\(level)>"), best.map({ e > $0.0 }) ?? true { best = (e, level) }
            }
            guard let (e, level) = best, let s = TableMarkup.findLast(Array(b[..<e]), "<h\(level)"),
                  let gt = TableMarkup.firstIndex(b, of: 0x3E, from: s), gt < e else { return nil }
            let text = TableMarkup.trimmed(TableMarkup.decodeEntities(TableMarkup.stripTags(Array(b[(gt + 1)..<e]))))
            return text.isEmpty ? nil : text
        }
        let pieces = ["<h1>", "</h1>", "<h2 id=\"x\">", "</h2>", "<h3>", "</h3>", "<h6>", "</h6>", "<h7>", "</h7>",
                      "<h", "</h", ">", "Title", " &amp; ", "<em>e</em>", "<p>", "</p>", "\n", "é", "<h2", "</h2"]
        var random = SeededNumbers(state: 11)
        var named = 0
        for _ in 0..<4000 {
            let bytes = Array(random.soup(pieces, fewerThan: 14).utf8)
            let got = TableMarkup.lastHeading(bytes)
            #expect(got == reference(bytes), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if got != nil { named += 1 }
        }
        #expect(named > 100)
    }

    /// The memchr-for-`=` link scan against the byte walk it replaced, on random markup
    /// with quotes, entities, look-alike attributes and values that hold `href=`.
    @Test func linkScanByEqualsSignAgreesWithTheByteWalk() {
        let pieces = [
            " href=", " src=", "href=", " data-src=", "\nhref=", "\tsrc=", "\"", "'", "a.html", "#top", "data:x",
            "mailto:a@b", "x&amp;y", "=", " ", "<a", ">", "</a>", " class=\"c\"", "hsrc=", " hre=", "é", "\r"
        ]
        var random = SeededNumbers(state: 5)
        var found = 0
        for _ in 0..<6000 {
            let bytes = Array(random.soup(pieces, fewerThan: 16).utf8)
            let (fast, walk) = bytes.withUnsafeBufferPointer { (LinkChecker.links(in: $0), linksByteWalk(in: $0)) }
            #expect(fast == walk, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            found += fast.count
        }
        #expect(found > 200)
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
        // (Pages with empty components and a trailing `/` too: the byte walk writes the
        // answer in place and cuts back at each `..`, the Character walk keeps a list.)
        let pages = ["index.html", "a/index.html", "a/b/index.html", "pages/p00001/index.html", "x.html",
                     "a//b/index.html", "/a/x.html", "a/b/", "a/b/c/d/e/index.html", "", "/", "//"]
        var random = SeededNumbers(state: 9)
        var decided = 0
        for _ in 0..<20_000 {
            let link = random.soup(pieces, fewerThan: 9)
            let page = pages[random.next() % pages.count]
            if let fast = SitePaths.resolveASCII(link, from: page) {
                decided += 1
                #expect(fast == SitePaths.resolveByCharacter(link, from: page), "\(link.debugDescription) on \(page)")
            }
        }
        #expect(decided > 5_000)
    }

    /// A page path with no component (empty, `/`) has no folder: a link that is not ASCII
    /// resolves from the site's root, as the byte walk answers for ASCII links (the
    /// Character walk used to crash there, removing the last of no components).
    @Test func linkFromAPagePathWithoutComponents() {
        for page in ["", "/", "//"] {
            #expect(SitePaths.resolve("é.html", from: page) == "é.html")
            #expect(SitePaths.resolve("a/é/", from: page) == "a/é/index.html")
            #expect(SitePaths.resolve("../é", from: page) == "../")
            #expect(SitePaths.resolve("a.html", from: page) == "a.html")
        }
    }

    /// `LinkChecker.opensFromDisk` (bytes for ASCII links) against the Character walk,
    /// on random links of slashes, dots, queries, fragments and non-ASCII text.
    @Test func opensFromDiskByBytesAgreesWithTheCharacterWalk() {
        let pieces = ["/", "//", ".", "..", "../", "./", "a", "b.html", "#", "?", "#x/", "?a=.", "é", "e\u{301}",
                      ".\u{301}", "\r\n", " "]
        var random = SeededNumbers(state: 10)
        for _ in 0..<20_000 {
            let link = random.soup(pieces, fewerThan: 7)
            #expect(LinkChecker.opensFromDisk(link) == LinkChecker.opensFromDiskByCharacter(link),
                    "\(link.debugDescription)")
        }
    }
}

/// A seeded linear congruential generator: every run tests the same random inputs.
struct SeededNumbers {
    var state: UInt64
    mutating func next() -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int(truncatingIfNeeded: state >> 33)
    }
    /// Fewer than `limit` random `pieces`, joined.
    mutating func soup(_ pieces: [String], fewerThan limit: Int) -> String {
        (0..<(next() % limit)).map { _ in pieces[next() % pieces.count] }.joined()
    }
}

/// The byte-by-byte walk `LinkChecker.links(in:)` replaced: the reference its test compares with.
func linksByteWalk(in bytes: UnsafeBufferPointer<UInt8>) -> [String] {
    var out: [String] = []
    let n = bytes.count
    var i = 0
    while i < n {
        let c = bytes[i]
        if (c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D) && i + 5 < n {
            var j = i + 1
            var matched = false
            if bytes[j] == 0x68, j + 5 < n, bytes[j + 1] == 0x72, bytes[j + 2] == 0x65, bytes[j + 3] == 0x66,
                bytes[j + 4] == 0x3D
            {
                j += 5; matched = true
            }  // href=
            else if bytes[j] == 0x73, j + 4 < n, bytes[j + 1] == 0x72, bytes[j + 2] == 0x63, bytes[j + 3] == 0x3D {
                j += 4; matched = true
            }  // src=
            if matched, j < n, bytes[j] == 0x22 || bytes[j] == 0x27 {
                let q = bytes[j]
                var k = j + 1
                var amp = false
                while k < n && bytes[k] != q { if bytes[k] == 0x26 { amp = true }; k += 1 }
                LinkChecker.appendLink(UnsafeBufferPointer(rebasing: bytes[(j + 1)..<k]), amp: amp, to: &out)
                i = k
                continue
            }
        }
        i += 1
    }
    return out
}
