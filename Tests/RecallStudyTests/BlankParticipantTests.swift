import Foundation
import Testing
@testable import RecallStudy

/// A participant number made only of white space is refused at its line (issue #36),
/// in native logs and desktop Raw Data alike; the set of white-space characters is the
/// one docs/recall-events.md lists.
@Suite struct BlankParticipantTests {
    /// The characters docs/recall-events.md lists as white space, written out as there.
    static let documented: Set<UInt32> = Set(Array(0x09...0x0D) + [0x20, 0x85, 0xA0, 0x1680] + Array(0x2000...0x200A)
        + [0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF])

    func withParticipant(_ p: String) -> String {
        // JSON-escape the way the kit's JSON.stringify would (control characters as \u).
        let escaped = p.unicodeScalars.map { $0.value < 0x20 ? String(format: "\\u%04x",
                                                                      $0.value) : String($0) }.joined()
        return header.replacingOccurrences(of: "\"P1\"", with: "\"\(escaped)\"") + "\n"
    }

    @Test func everyScalarIsBlankExactlyWhenTheDocsListIt() {
        var disagreements: [UInt32] = []
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }   // surrogates
            if NativeLog.isBlank(String(Character(s))) != Self.documented.contains(v) { disagreements.append(v) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10).map { String($0, radix: 16) })")
    }

    @Test func aBlankParticipantIsRefusedAtTheHeaderLine() {
        for p in [" ", "   ", "\t", "\u{3000}\u{3000}", " \u{A0}\u{FEFF} ", String(repeating: " ", count: 12)] {
            let e = recallError { _ = try parseLog(withParticipant(p), file: "p07.jsonl") }
            #expect(e?.file == "p07.jsonl")
            #expect(e?.line == 1)
            #expect(
                e?.message == "the participant number is only white space (it needs at least one other character)",
                "\(Array(p.unicodeScalars))")
        }
    }

    @Test func spacesAroundOrInsideAVisibleNumberAreKept() throws {
        for p in [" P1", "P 1 ", "\u{3000}7", "-"] {
            #expect(try parseLog(withParticipant(p)).participant == p)
        }
    }

    @Test func aBlankParticipantInDesktopRawDataIsRefusedAtItsRow() {
        // Column B is trimmed of spaces and tabs first (an all-space cell is "empty"); what
        // trimming leaves, such as U+FEFF or U+0085, is then white space alone.
        let head =
            "milliseconds,phase & participant number,string number,phase code,key press,character code,what has been "
                + "typed,target string,target = typed\n"
        for (cell, says) in [("   ", "is empty"), ("\u{FEFF}", "only white space"), (" \u{85} ", "only white space")] {
            let e = recallError { _ = try DesktopRaw.parse(head + "100,\(cell),1,P,D,A,,abc,False\n", file: "d.csv") }
            #expect(e?.file == "d.csv")
            #expect(e?.line == 2)
            #expect(e?.message.contains(says) == true, "\(String(describing: e))")
        }
    }
}
