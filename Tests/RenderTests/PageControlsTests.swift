import Testing
@testable import Escaping
@testable import Render

/// The page scan for control characters (`PageControls`, 16 bytes at a time in C)
/// against the byte rule it stands for (`ControlCharacters.hasDisplayControl`), with every
/// interesting byte at every place of a block and across blocks, on texts of 0–80 bytes
/// from every start offset.
@Suite struct PageControlsTests {
    static let interesting: [UInt8] = [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1F, 0x20, 0x41, 0x7E, 0x7F,
                                       0x80, 0x85, 0x9F, 0xA0, 0xB7, 0xBF, 0xC1, 0xC2, 0xC3, 0xE2, 0xFF]

    @Test func vectorScanAgreesWithTheByteRule() {
        var rng = SystemRandomNumberGenerator()
        var checked = 0, found = 0
        for length in 0...100 {
            for _ in 0..<250 {
                // Mostly letters and newlines, a few interesting bytes anywhere; now and then
                // only layout bytes and 0xC2 pairs that are not C1 controls.
                let mild = Bool.random(using: &rng)
                let bytes: [UInt8] = (0..<length).map { _ in
                    let r = Int.random(in: 0..<12, using: &rng)
                    if r == 0 { return mild ? [0x09, 0x0A, 0x0D, 0xC2, 0xB7][Int.random(in: 0..<5, using: &rng)]
                                            : Self.interesting.randomElement(using: &rng)! }
                    return r == 1 ? 0x0A : 0x61
                }
                let start = Int.random(in: 0...length, using: &rng)
                let tail = Array(bytes[start...])
                let fast = bytes.withUnsafeBufferPointer {
                    PageControls.hasDisplayControl(UnsafeBufferPointer(rebasing: $0[start...]))
                }
                let plain = ControlCharacters.hasDisplayControl(tail)
                #expect(fast == plain, "\(bytes) from \(start)")
                checked += 1
                if plain { found += 1 }
            }
        }
        // A C1 control across two steps of the scan (32 bytes): C2 as byte 31, 85 as byte 32;
        // and C2 last with a byte that is no C1 control after it.
        for (second, expected) in [(UInt8(0x85), true), (0xB7, false)] {
            let split = [UInt8](repeating: 0x61, count: 31) + [0xC2, second] + [UInt8](repeating: 0x61, count: 40)
            #expect(split.withUnsafeBufferPointer { PageControls.hasDisplayControl($0) } == expected)
        }
        #expect(found > checked / 10 && found < checked * 9 / 10)   // both answers were exercised
    }

    @Test func pagesComeBackAsTheRuleMakesThem() {
        let long = String(repeating: "x", count: 40) + "\u{1B}[0m" + String(repeating: "y", count: 40)
        for text in ["", "plain", "a\u{7}b", "tab\tnew\nline\r", "\u{85}", "Page · Site", long, "\u{9F}\u{A0}"] {
            #expect(PageControls.displayUTF8(text) == ControlCharacters.display(text), "\(text.debugDescription)")
        }
    }
}
