import Foundation
import GameAnalytics
import Testing
@testable import DossierKit

/// Prose kept in text files (the commands' help in Help/, the game methods page's
/// definitions): the paragraph rules of ``ProseText`` and the methods page's file.
@Suite struct ProseTextTests {
    @Test func paragraphLinesJoinAndIndentedLinesStay() {
        let file = """
        One paragraph written
        on three lines,   \n\
        with spaces at an end.

        Examples:
          dossier build my-study        # as written
          dossier check my-study

        Last.


        """
        #expect(ProseText.unwrap(file) == """
        One paragraph written on three lines, with spaces at an end.

        Examples:
          dossier build my-study        # as written
          dossier check my-study

        Last.
        """)
    }

    @Test func anIndentedLineEndsAParagraphAndTheNextLineStartsOne() {
        #expect(ProseText.unwrap("a\nb\n  c\nd\ne") == "a b\n  c\nd e")
        #expect(ProseText.unwrap("") == "")
    }

    /// The byte walk against the Character walk on generated texts: line breaks, blanks
    /// at both ends, indented lines, empty lines at the end, `\r` alone and in `\r\n`
    /// (one Character: no line break there), and non-ASCII text (which takes the Character
    /// walk, so it must say nil).
    @Test func unwrapOverBytesAgreesWithTheCharacterWalk() {
        let pieces = ["word", "Two words", "\n", "\n", "\n\n", " ", "  ", "\t", "\r", "\r\n", "-", "#", "x\n  indented",
                      "é", " \u{301}", "—"]
        var random = SeededNumbers(state: 21)
        var ascii = 0
        for _ in 0..<20_000 {
            let text = random.soup(pieces, fewerThan: 14)
            var copy = text
            let fast = copy.withUTF8(ProseText.unwrapASCII)
            let slow = ProseText.unwrapByCharacter(text)
            let plain = text.utf8.allSatisfy { $0 < 0x80 } && !text.contains("\r\n")
            #expect((fast != nil) == plain, "\(text.debugDescription)")
            if let fast { #expect(fast == slow, "\(text.debugDescription)"); ascii += 1 }
            #expect(ProseText.unwrap(text) == slow)
        }
        #expect(ascii > 5_000 && ascii < 19_000)   // both walks were exercised
    }

    @Test func sectionsSplitAtHeadingsAndDropTheWritersNote() {
        let s = ProseText.sections("note for the writer\nignored\n## one\nfirst\nline\n\n## two  \nsecond\n")
        #expect(s == ["one": "first line", "two": "second"])
    }

    @Test func everyGameMeasureHasItsDefinitionFromTheTextFile() {
        let defs = GameMethodsPage.definitions
        #expect(defs["hitRTMean"]?.hasPrefix("The mean reaction time of the hits: for each obstacle") == true)
        #expect(Set(defs.keys) == Set(MeasureCatalog.normed.map(\.name)))
        #expect(defs.values.allSatisfy { !$0.isEmpty && !$0.contains("\n") })
    }
}
