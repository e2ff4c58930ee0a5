import Foundation
import Testing
@testable import RecallStudy

/// The two real desktop samples of the seed document (Appendix A and B).
@Suite struct DesktopTests {
    /// Appendix A rows as (time, action, key, text column G), read straight from the CSV.
    func fixtureRows() -> [(t: Int, action: String, key: String, text: String)] {
        fixtureText("desktop-raw-appendix-a.csv").split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7, !f[3].isEmpty else { return nil }
            return (Int(f[0])!, f[4], f[5], f[6])
        }
    }

    func appendixA() throws -> SessionLog {
        try DesktopRaw.load(fixture("desktop-raw-appendix-a.csv"), display: "appendix-a.csv")
    }

    @Test func reconstructedTextMatchesColumnGOnEveryRow() throws {
        let log = try appendixA()
        let rows = fixtureRows()
        let keys: [(t: Int, text: String?)] = log.events.compactMap {
            if case .key(_, _, let text, _) = $0.kind { return ($0.t, text) }
            return nil
        }
        #expect(keys.count == rows.count)
        // Replaying the edits each key made, from an empty field, gives column G (the text
        // when the event fired) on every row.
        var text = ""
        for (k, row) in zip(keys, rows) {
            #expect(k.t == row.t)
            #expect(text == row.text, "row at \(row.t)")
            let change = DesktopRaw.typedChange(before: text, after: k.text ?? text)
            text = String(text.dropLast(change.deleted)) + change.inserted
        }
        #expect(text == "5c2'Qe")
    }

    @Test func typedCharacterComesFromTheTextChangeNotTheKeyName() throws {
        let log = try appendixA()
        var before = ""
        var typed: [String: String] = [:]
        for e in log.events {
            guard case .key(let label, let action, let text, _) = e.kind, action == .down, let text else { continue }
            let c = DesktopRaw.typedChange(before: before, after: text)
            if typed[label] == nil { typed[label] = c.inserted }
            before = text
        }
        #expect(typed["Oemtilde"] == "'")
        #expect(typed["D5"] == "5")
        #expect(typed["ShiftKey"] == "")
        #expect(typed["Q"] == "Q")
        #expect(DesktopRaw.typedChange(before: "5c2", after: "5c") == ("", 1))
    }

    @Test func appendixAEntryMeasures() throws {
        let strings = StringSet(strings: ["5c2'Qe"] + (2...10).map { "s\($0)xxx" })
        let r = try Analyzer.analyze(try appendixA(), strings: strings)
        #expect(r.participant == "2")
        #expect(r.source == .desktop)
        #expect(r.complete == false)          // the excerpt stops mid-test
        #expect(r.warnings.isEmpty)
        let s = r.strings[0]
        // The `320,Practice` marker is the page display; the last event is at 46650.
        #expect(s.memorizeViews.map(\.start) == [320])
        #expect(s.memorizeViews.map(\.durationMs) == [46330])
        #expect(s.memorizeViews.map(\.toLastKeyMs) == [46330])
        #expect(s.practice.count == 1)
        let e = s.practice[0]
        #expect(e.start == 33612)
        #expect(e.end == 46650)
        #expect(e.durationMs == 13038)
        #expect(e.keystrokes == 12)           // 12 key downs, Shift included
        #expect(e.deletions == 2)             // the last Back's effect is not in the excerpt
        #expect(e.text == "5c2'Qe")
        #expect(e.correct)
        let d = e.dynamics
        #expect(d.keys == ["D5", "C", "D2", "Back", "D2", "Oemtilde", "ShiftKey", "Q", "W", "Back", "E", "Back"])
        // Holds: 132 128 160 104 152 176 176 105 144 152 136 → sorted middle = 144.
        #expect(d.hold == [132, 128, 160, 104, 152, 176, 176, 105, 144, 152, 136])
        #expect(d.medianHold == 144)
        // Down-down: 302 1392 320 192 312 584 72 200 656 320 8688 → median 320.
        #expect(d.downDown == [302, 1392, 320, 192, 312, 584, 72, 200, 656, 320, 8688])
        #expect(d.medianDownDown == 320)
        // Up-down: Shift still held when Q goes down gives −104; median 168.
        #expect(d.upDown == [170, 1264, 160, 88, 160, 408, -104, 95, 512, 168, 8552])
        #expect(d.medianUpDown == 168)
        // Up-up (10 pairs; the last Back has no up): middle two 298 and 304.
        #expect(d.upUp == [298, 1424, 264, 240, 336, 584, 1, 239, 664, 304])
        #expect(d.medianUpUp == 301)
        #expect(r.sessionTotalMs == 46330)
    }

    @Test func desktopTargetMustAgreeWithTheStringsFile() throws {
        let e = recallError { _ = try Analyzer.analyze(try appendixA(), strings: try studyStrings()) }
        #expect(e?.file == "appendix-a.csv")
        #expect(e?.line == 3)
        #expect(e?.message.contains("string 1") == true)
    }

    @Test func unknownPhaseCodeAndBackwardsTimeAreErrors() {
        let head =
            "milliseconds,phase & participant number,string number,phase code,key press,character code,what has been "
                + "typed,target string,target = typed\n"
        let e = recallError { _ = try DesktopRaw.parse(head + "100,2,1,X,D,A,,abc,False\n", file: "d.csv") }
        #expect(e?.line == 2)
        #expect(e?.message.contains("unknown phase code \"X\"") == true)
        let e2 = recallError {
            _ = try DesktopRaw.parse(head + "100,2,1,P,D,A,,abc,False\n90,2,1,P,U,A,a,abc,False\n", file: "d.csv")
        }
        #expect(e2?.line == 3)
        #expect(DesktopRaw.phase("F7")! == (.entry, 7))
        #expect(DesktopRaw.phase("R3")! == (.recall, 3))
        #expect(DesktopRaw.phase("F11") == nil)
    }

    @Test func appendixBReproducesTheTableCellForCell() throws {
        let cohort = try DesktopCohort.load(fixture("desktop-rolled-up-appendix-b.csv"))
        #expect(cohort.complete.count == 24)
        #expect(cohort.incomplete.count == 7)
        #expect(cohort.columns.map(\.length) == [6, 6, 8, 8, 10, 10, 12, 12, 14, 14])
        #expect(cohort.columns.map(\.order) == [1, 9, 3, 10, 5, 6, 4, 7, 2, 8])
        let expected = fixtureText("desktop-rolled-up-appendix-b.csv")
            .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(cohort.rows() == expected)
        // Blank stays blank: participant 4 has no value for string 1.
        #expect(cohort.incomplete[0].id == "4")
        #expect(cohort.incomplete[0].values[0] == nil)
        #expect(cohort.incomplete[0].values[8] == 36.35)
    }

    @Test func studyTableUsesAppendixBColumnOrder() throws {
        let strings = StringSet(strings: ["5c2'Qe", "m#o)fp^2aRf207", "m3)61fHw", "d51)u4;X3wrf", "p4d46*3TXY",
                                          "q80<u?c2mv", "6n04%Ei'Hm3V", "4i_55fQ$2Mnh30", "3.bH1o", "ua7t?C2#"])
        let cohort = try DesktopCohort.load(fixture("desktop-rolled-up-appendix-b.csv"))
        #expect(CohortTable.columns(for: strings) == cohort.columns)
    }
}
