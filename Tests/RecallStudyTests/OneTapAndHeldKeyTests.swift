import Foundation
import Testing
@testable import RecallStudy

/// Issue #43: a one-tap entry (one press that adds several characters: a paste, a drop,
/// dictation) is kept but left out of `meanEntrySeconds` with a warning naming its line;
/// an autocorrect at the space bar (taps while the space key is held) is one keystroke
/// (docs/recall-measures.md "One-tap entries", docs/recall-events.md "A change while a
/// key is held").
@Suite struct OneTapAndHeldKeyTests {
    /// String 1's Memorize, Verify and Entry pages; `entry` holds the Entry page's lines.
    func analyze(_ entry: [String]) throws -> ParticipantResult {
        let lines = [
            header,
            #"{"t":100,"type":"page","page":"memorize","string":1}"#,
            #"{"t":200,"type":"button","button":"next"}"#,
            #"{"t":200,"type":"page","page":"verify","string":1}"#,
            #"{"t":300,"type":"key","key":"3","action":"tap","text":"abc123","field":1}"#,
            #"{"t":400,"type":"button","button":"verify","result":"ok"}"#,
            #"{"t":500,"type":"button","button":"start-test"}"#,
            #"{"t":500,"type":"page","page":"entry","string":1}"#,
        ] + entry
        return try Analyzer.analyze(try parseLog(lines.joined(separator: "\n") + "\n"), strings: try studyStrings())
    }

    /// Field `f` typed key by key from `t`: one tap per character, 200 ms apart.
    func typed(_ f: Int, _ text: String, from t: Int) -> [String] {
        text.indices.enumerated().map { k, i in
            let so = String(text[...i])
            return
                #"{"t":\#(t + 200 * k),"type":"key","key":"\#(text[i])","action":"tap","text":"\#(so)","field":\#(f)}"#
        }
    }

    @Test func aPastedEntryIsKeptButLeftOutOfTheMeanWithAWarning() throws {
        // Field 1 typed (6 presses, 1000 ms), field 2 pasted (one tap, 0 ms, line 15), field 3 typed.
        let pasted = #"{"t":3000,"type":"key","key":"3","action":"tap","text":"abc123","field":2}"#
        let r = try analyze(typed(1, "abc123", from: 1000) + [pasted] + typed(3, "abc123", from: 4000))
        let s = r.strings[0]
        #expect(s.entries.map(\.oneTap) == [false, true, false])
        #expect(s.entries.map(\.durationMs) == [1000, 0, 1000])
        #expect(s.oneTapEntries == 1)
        // The Verify page's one tap of "abc123" is practice: only Entry-page entries are one-tap.
        #expect(s.practice.count == 1 && s.practice.allSatisfy { !$0.oneTap })
        #expect(s.meanEntrySeconds == 1.0)                  // (1000 + 1000) / 2, not 2000 / 3
        #expect(s.entries.count == 3 && s.incorrectEntries == 0)
        let w = r.warnings.filter { $0.message.contains("one key press entered several characters at once") }
        #expect(w.count == 1 && w.first?.line == 15)
        #expect(ParticipantSummary(r).strings[0].meanEntrySeconds == 1.0)
        let detail = ParticipantDetail(r, strings: try studyStrings())
        #expect(detail.entries.map(\.oneTap) == [false, true, false])
        #expect(StudyContribution(detail).entries.map(\.duration) == [1000, 1000])
        let again = detail.compactBytes().withUnsafeBytes { ParticipantDetail(compactBytes: $0) }
        #expect(again == detail)
    }

    @Test func typingOneCharacterAtATimeIsNeverOneTap() throws {
        #expect(!Analyzer.addsSeveral("abc", "abcd"))
        #expect(!Analyzer.addsSeveral("abc", "ab"))
        #expect(!Analyzer.addsSeveral("ab", "ab👍🏽"))            // one character, several code points
        #expect(Analyzer.addsSeveral("", "ab"))
        #expect(Analyzer.addsSeveral("a", "a👍🏽é"))
        let r = try analyze(typed(1, "abc123", from: 1000))
        #expect(r.strings[0].oneTapEntries == 0 && r.strings[0].meanEntrySeconds == 1.0)
    }

    @Test func anAutocorrectWhileTheSpaceBarIsHeldIsOneKeystroke() throws {
        let held = [
            #"{"t":1000,"type":"key","key":"a","action":"down","text":"a","field":1}"#,
            #"{"t":1050,"type":"key","key":"a","action":"up","field":1}"#,
            #"{"t":1200,"type":"key","key":"space","action":"down","text":"a ","field":1}"#,
            #"{"t":1203,"type":"key","key":"⌫","action":"tap","text":"","field":1}"#,
            #"{"t":1204,"type":"key","key":"space","action":"tap","text":"A ","field":1}"#,
            #"{"t":1290,"type":"key","key":"space","action":"up","field":1}"#,
        ]
        let e = try analyze(held).strings[0].entries[0]
        #expect(e.keystrokes == 2 && e.deletions == 0)
        #expect(e.text == "A " && e.end == 1200 && !e.oneTap)
        #expect(e.dynamics.hold == [50, 90])
    }

    @Test func autoRepeatAndAPasteWithControlHeldStayKeystrokes() throws {
        // The space bar held: its repeats append a space each (taps that are keystrokes).
        let repeats = [
            #"{"t":1000,"type":"key","key":"space","action":"down","text":" ","field":1}"#,
            #"{"t":1500,"type":"key","key":"space","action":"tap","text":"  ","field":1}"#,
            #"{"t":1530,"type":"key","key":"space","action":"tap","text":"   ","field":1}"#,
            #"{"t":1600,"type":"key","key":"space","action":"up","field":1}"#,
        ]
        #expect(try analyze(repeats).strings[0].entries[0].keystrokes == 3)
        // Control held for a paste: a modifier is no character key, the paste is a press (one-tap).
        let paste = [
            #"{"t":1000,"type":"key","key":"Control","action":"down","text":"","field":1}"#,
            #"{"t":1090,"type":"key","key":"3","action":"tap","text":"abc123","field":1}"#,
            #"{"t":1200,"type":"key","key":"Control","action":"up","field":1}"#,
        ]
        let e = try analyze(paste).strings[0].entries[0]
        #expect(e.keystrokes == 2 && e.oneTap)
    }
}
