import Foundation
import Testing
@testable import RecallStudy

/// The hand-written log `Fixtures/golden-session.jsonl` (participant P-07): string 1 with
/// two Memorize views, a failed Verify, an Entry page with a typo fixed by backspace, a
/// wrong entry in field 3 re-keyed at the end, key down/up pairs in field 1; string 2
/// plainly; a Recall with a leading space. Every expected number below was worked out by
/// hand from the times in the fixture (see the comments).
@Suite struct GoldenSessionTests {
    func result() throws -> ParticipantResult {
        let log = try NativeLog.load(fixture("golden-session.jsonl"), display: "golden.jsonl")
        return try Analyzer.analyze(log, strings: try studyStrings())
    }

    @Test func sessionIsCompleteWithoutWarnings() throws {
        let r = try result()
        #expect(r.participant == "P-07")
        #expect(r.complete)
        #expect(r.warnings.isEmpty)
        // First Memorize display 100 → last Recall keystroke 32600.
        #expect(r.sessionStart == 100)
        #expect(r.sessionEnd == 32600)
        #expect(r.sessionTotalMs == 32500)
    }

    @Test func memorizeViewsAndTotal() throws {
        let s = try result().strings[0]
        // View 1: 100 → 2100 (last key down at 1200; its up at 1260 does not count); view 2:
        // 3400 → 5400, nothing typed.
        #expect(s.memorizeViews.map(\.durationMs) == [2000, 2000])
        #expect(s.memorizeViews.map(\.toLastKeyMs) == [1100, nil])
        #expect(s.memorizeViews.map(\.textAtTurn) == ["ab", ""])
        #expect(s.memorizeTotalMs == 4000)
        #expect(s.practice.filter { $0.page == .memorize }.count == 1)
    }

    @Test func verifyViewsAttemptsAndFailure() throws {
        let s = try result().strings[0]
        // View 1: 2100 → 3400; view 2: 5400 → 6500.
        #expect(s.verifyViews.map(\.durationMs) == [1300, 1100])
        #expect(s.verifyTotalMs == 2400)
        #expect(s.verifyAttempts.map(\.text) == ["abd", "abc123"])
        #expect(s.verifyAttempts.map(\.correct) == [false, true])
        #expect(s.verifyAttempts.map(\.appResult) == [false, true])
        #expect(s.verifyFailures == 1)
    }

    @Test func entriesInOrderWithReKeyAndErrors() throws {
        let s = try result().strings[0]
        #expect(s.entries.count == 11)
        #expect(s.entries.map(\.field) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3])
        #expect(s.entries.map(\.order) == Array(1...11))
        // Keystroke times are key downs or taps. Field 1: 7000 → 7900; field 2: 8200 → 8900
        // with x then ⌫; field 3 first keyed "abc124" (9100 → 9600); fields 4–10 500 ms each;
        // re-key of 3: 17200 → 17400.
        #expect(s.entries.map(\.durationMs) == [900, 700, 500, 500, 500, 500, 500, 500, 500, 500, 200])
        #expect(s.entries[1].keystrokes == 8)
        #expect(s.entries[1].deletions == 1)
        #expect(s.entries[2].text == "abc124")
        #expect(s.entries[2].correct == false)
        #expect(s.entries[10].rekey)
        #expect(s.entries.filter(\.rekey).count == 1)
        #expect(s.entries[10].text == "abc123")
        #expect(s.incorrectEntries == 1)
        #expect(s.rekeys == 1)
        #expect(s.deletions == 2)
        #expect(s.finalEntries == Array(repeating: "abc123", count: 10))
        #expect(s.finalCorrect == 10)
        // Entry display 6500 → Done 17800.
        #expect(s.entryTotalMs == 11300)
        #expect(s.completed)
        // First Memorize display 100 → last Entry keystroke 17400.
        #expect(s.memorizeToLastEntryKeyMs == 17300)
        // (900 + 700 + 500 + 7 × 500 + 200) / 11 ms.
        #expect(abs(s.meanEntrySeconds! - 5.800 / 11) < 1e-12)
    }

    @Test func keystrokeDynamicsOfTheDownUpEntry() throws {
        let d = try result().strings[0].entries[0].dynamics
        // Keys a(7000,7100) b(7200,7300) c(7250,7330) 1(7500,7580) 2(7700,7760) 3(7900,7990).
        #expect(d.keys == ["a", "b", "c", "1", "2", "3"])
        #expect(d.hold == [100, 100, 80, 80, 60, 90])
        #expect(d.downDown == [200, 50, 250, 200, 200])
        #expect(d.upDown == [100, -50, 170, 120, 140])   // b and c overlap
        #expect(d.upUp == [200, 30, 250, 180, 230])
        #expect(d.medianHold == 85)
        #expect(d.medianDownDown == 200)
        #expect(d.medianUpDown == 120)
        #expect(d.medianUpUp == 200)
        // Taps carry no hold, so H + UD = DD is checked where all three exist.
        for i in 0..<d.upDown.count { #expect(d.hold[i] + d.upDown[i] == d.downDown[i]) }
        let tapOnly = try result().strings[0].entries[3].dynamics
        #expect(tapOnly.hold.isEmpty)
        #expect(tapOnly.downDown == [100, 100, 100, 100, 100])
    }

    @Test func secondStringAndRecall() throws {
        let r = try result()
        let s2 = r.strings[1]
        #expect(s2.memorizeViews.map(\.durationMs) == [2000])
        #expect(s2.verifyFailures == 0)
        #expect(s2.meanEntrySeconds == 0.5)
        #expect(s2.entryTotalMs == 8500)
        #expect(r.strings[2].reached == false)
        let rc = try #require(r.recall)
        // Recall display 30000 → last keystroke 32600.
        #expect(rc.totalMs == 2600)
        #expect(rc.fields.map(\.text) == [" abc123", "Qx,9!z"])
        #expect(rc.fields.map(\.correct) == [false, true])   // a leading space is a mismatch
        #expect(rc.fields.map(\.matches) == [nil, 2])
        #expect(rc.stringsRecalled == [2])
    }

    @Test func abandonedSessionKeepsEverythingUpToTheLastEvent() throws {
        let log = try NativeLog.load(fixture("abandoned-session.jsonl"), display: "abandoned.jsonl")
        let r = try Analyzer.analyze(log, strings: try studyStrings())
        #expect(r.complete == false)
        #expect(r.lastEventMs == 5000)
        #expect(r.strings[0].memorizeViews.map(\.durationMs) == [1900])
        // Verify shown at 2000, app closed at 5000.
        #expect(r.strings[0].verifyViews.map(\.durationMs) == [3000])
        #expect(r.strings[0].verifyViews.first?.textAtTurn == "abc")
        #expect(r.sessionTotalMs == 4900)
        #expect(r.recall == nil)
        #expect(r.warnings.isEmpty)
    }

    @Test func rawTableHasColumnsAThroughJAndPageTurns() throws {
        let log = try NativeLog.load(fixture("golden-session.jsonl"), display: "golden.jsonl")
        let r = try Analyzer.analyze(log, strings: try studyStrings())
        let t = RawData.table(log: log, result: r, strings: try studyStrings())
        #expect(t.header.count == 11)
        #expect(t.rows.allSatisfy { $0.count == 11 })
        // One row per event except `fields`, plus one row per field at each page turn.
        let fieldsEvents = log.events.filter { if case .fields = $0.kind { return true } else { return false } }.count
        let turnRows = r.pageTurns.reduce(0) { $0 + $1.fields.count }
        #expect(t.rows.count == log.events.count - fieldsEvents + turnRows)
        let touch = try #require(t.rows.first { $0[8] != .empty })
        #expect(touch[8] == .text("160,200"))
        let wrong = try #require(t.rows.first { $0[5] == .text("abc124") })
        #expect(wrong[3] == .text("Entry 3"))
        #expect(wrong[7] == .flag(false))
        let recallTurn = try #require(t.rows.first { $0[10] == .text("page-turn") && $0[3] == .text("Recall 1") })
        #expect(recallTurn[9] == .text(" abc123"))
        #expect(recallTurn[7] == .flag(false))
    }

    @Test func rolledUpListsEveryMeasure() throws {
        let r = try result()
        let t = RolledUp.table(r)
        #expect(t.rows.allSatisfy { $0.count == t.header.count })
        func rows(_ phase: String, _ item: String) -> [[TableCell]] {
            t.rows.filter { $0[4] == .text(phase) && $0[5] == .text(item) }
        }
        #expect(rows("Memorize", "view").count == 3)        // two for string 1, one for string 2
        #expect(rows("Verify", "attempt").count == 3)
        #expect(rows("Entry", "entry").count == 21)
        #expect(rows("Entry", "field_at_turn").count == 20)
        #expect(rows("Recall", "field").count == 2)
        let session = try #require(rows("Multiple", "session_total").first)
        #expect(session[10] == .number(32500))
        #expect(session[11] == .text("complete"))
        let rekeyed = try #require(rows("Entry", "entry").first { $0[13] == .flag(true) })
        #expect(rekeyed[7] == .int(3))
    }
}
