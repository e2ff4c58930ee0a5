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
