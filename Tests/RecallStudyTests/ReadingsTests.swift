import Foundation
import Testing
@testable import RecallStudy

/// The readings where code and docs once disagreed (docs/recall-measures.md, "Edge
/// cases"), each pinned on a hand-written log.
@Suite struct ReadingsTests {
    /// Analyses `lines` (events, one JSON object per line) after the standard header.
    func analyze(_ lines: String, file: String = "t.jsonl") throws -> ParticipantResult {
        try Analyzer.analyze(parseLog(header + "\n" + lines + "\n", file: file), strings: studyStrings())
    }

    @Test func entryPageLeftWithoutDoneEndsWhenThePageIsLeftAndCountsAsCompleted() throws {
        let r = try analyze(#"""
        {"t":0,"type":"page","page":"memorize","string":1}
        {"t":100,"type":"page","page":"entry","string":1}
        {"t":200,"type":"key","key":"a","text":"abc123","field":1}
        {"t":900,"type":"page","page":"memorize","string":2}
        {"t":1000,"type":"page","page":"entry","string":2}
        {"t":1100,"type":"key","key":"Q","text":"Qx,9!z","field":1}
        {"t":1500,"type":"page","page":"recall"}
        {"t":1600,"type":"page","page":"thankyou"}
        {"t":5000,"type":"touch","x":1,"y":2}
        """#)
        // Entry of string 1: display 100 → next page 900, not → end of the session (5000).
        #expect(r.strings[0].entryTotalMs == 800)
        #expect(r.strings[0].completed)
        #expect(r.strings[1].entryTotalMs == 500)
        #expect(r.strings[1].completed)
        #expect(!r.warnings.contains { $0.message.contains("never") })
    }

    @Test func entryPageStillOpenAtTheEndOfAnAbandonedLogIsNotCompleted() throws {
        let r = try analyze(#"""
        {"t":0,"type":"page","page":"entry","string":1}
        {"t":300,"type":"key","key":"a","text":"a","field":1}
        """#)
        #expect(r.strings[0].entryTotalMs == 300)
        #expect(!r.strings[0].completed)
    }

    @Test func eventsAfterCloseDoNotMoveTheEndOfTheSession() throws {
        let r = try analyze(#"""
        {"t":100,"type":"page","page":"memorize","string":1}
        {"t":400,"type":"close"}
        {"t":9000,"type":"touch","x":1,"y":2}
        """#)
        #expect(r.lastEventMs == 400)
        #expect(r.sessionTotalMs == 300)
        #expect(r.strings[0].memorizeViews.map(\.durationMs) == [300])
        #expect(r.warnings.contains { $0.line == 4 && $0.message.contains("after the app was closed") })
    }

    @Test func aKeyNamingAFieldMovesTheFocusForLaterKeysWithoutOne() throws {
        let log = try parseLog(header + "\n" + #"""
        {"t":0,"type":"page","page":"entry","string":1}
        {"t":10,"type":"focus","field":1}
        {"t":20,"type":"key","key":"a","text":"a","field":3}
        {"t":30,"type":"key","key":"b","text":"ab"}
        """# + "\n")
        let r = try Analyzer.analyze(log, strings: studyStrings())
        #expect(r.strings[0].entries.map(\.field) == [3])
        #expect(r.strings[0].entries.first?.keystrokes == 2)
        #expect(r.strings[0].finalEntries[2] == "ab")
        #expect(r.strings[0].finalEntries[0] == "")
        let raw = RawData.table(log: log, result: r, strings: try studyStrings())
        let keyRows = raw.rows.filter { [.text("tap")].contains($0[10]) }
        #expect(keyRows.map { $0[3] } == [.text("Entry 3"), .text("Entry 3")])
    }

    @Test func aLoneKeyReleaseMakesNoEntry() throws {
        let r = try analyze(#"""
        {"t":0,"type":"page","page":"entry","string":1}
        {"t":10,"type":"focus","field":1}
        {"t":20,"type":"key","key":"a","action":"down","text":"a"}
        {"t":25,"type":"key","key":"Tab","action":"down","text":"a"}
        {"t":30,"type":"focus","field":2}
        {"t":90,"type":"key","key":"Tab","action":"up"}
        {"t":95,"type":"key","key":"a","action":"up","field":1}
        {"t":200,"type":"key","key":"b","action":"down","text":"b"}
        """#)
        let e = r.strings[0].entries
        #expect(e.map(\.field) == [1, 2])
        #expect(e.map(\.keystrokes) == [2, 1])
        #expect(e.allSatisfy { $0.keystrokes > 0 })
        #expect(e[1].start == 200)
    }

    @Test func recallKeyRowsNameTheMatchedStringInColumnG() throws {
        let log = try parseLog(header + "\n" + #"""
        {"t":0,"type":"page","page":"recall"}
        {"t":10,"type":"key","key":"z","text":"Qx,9!z","field":2}
        {"t":20,"type":"key","key":"y","text":"Qx,9!zy","field":2}
        """# + "\n")
        let r = try Analyzer.analyze(log, strings: studyStrings())
        let raw = RawData.table(log: log, result: r, strings: try studyStrings())
        let keys = raw.rows.filter { $0[10] == .text("tap") }
        #expect(keys.map { $0[6] } == [.text("Qx,9!z"), .text("")])
        #expect(keys.map { $0[7] } == [.bool(true), .bool(false)])
    }

    @Test func exactMatchingIsCanonicalEquivalenceAndNothingLooser() throws {
        let set = StringSet(strings: ["\u{E4}bc123", "Qx,9!z", "m3)61fHw", "ua7t?C2#", "p4d46*3TXY",
                                      "q80<u?c2mv", "d51)u4;X3wrf", "6n04%Ei'Hm3V", "m#o)fp^2aRf207", "ﬁ4_55fQ$2M"])
        func verify(_ text: String, string: Int) throws -> Bool {
            let json = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
            let h = #"{"type":"session","participant":"P1"}"#
            let log = try parseLog(h + "\n" + """
            {"t":0,"type":"page","page":"verify","string":\(string)}
            {"t":5,"type":"key","key":"x","text":\(json),"field":1}
            {"t":10,"type":"button","button":"verify"}
            """ + "\n")
            return try Analyzer.analyze(log, strings: set).strings[string - 1].verifyAttempts[0].correct
        }
        #expect(try verify("a\u{308}bc123", string: 1))        // decomposed ä = precomposed ä
        #expect(try verify("\u{E4}bc123", string: 1))
        #expect(try !verify("abc123", string: 1))
        #expect(try !verify("\u{E4}bc123 ", string: 1))        // a trailing space counts
        #expect(try !verify("\u{C4}bc123", string: 1))          // case counts
        #expect(try !verify("fi4_55fQ$2M", string: 10))         // compatibility forms differ (no NFKC)
        #expect(try !verify("Ｑx,9!z", string: 2))               // fullwidth Q is another key
        #expect(RecallMatch.exact("a\u{308}", "\u{E4}"))
        #expect(RecallMatch.normalized("a\u{308}") == Array("\u{E4}".utf8))
    }

    @Test func invalidUTF8InALogIsAnErrorWithFileAndLine() {
        var data = Data((header + "\n" + #"{"t":0,"type":"page","page":"entry","string":1}"# + "\n").utf8)
        data.append(
            contentsOf: Array(#"{"t":5,"type":"key","key":"x","text":"a"#.utf8) + [0xC3, 0x28] + Array("\"}\n".utf8))
        let e = recallError { _ = try NativeLog.parse(data, file: "bad.jsonl") }
        #expect(e?.file == "bad.jsonl")
        #expect(e?.line == 3)
        #expect(e?.message.contains("not UTF-8") == true)
    }

    @Test func aLastLineCutInsideACharacterIsACutOffWarning() throws {
        var data = Data((header + "\n" + #"{"t":0,"type":"page","page":"entry","string":1}"# + "\n").utf8)
        data.append(contentsOf: Array(#"{"t":5,"type":"key","key":"x","text":"a"#.utf8) + [0xC3])
        let log = try NativeLog.parse(data, file: "cut.jsonl")
        #expect(log.events.count == 1)
        #expect(log.warnings.first?.line == 3)
    }

    @Test func invalidUTF8InTheStringsFileAndDesktopFilesIsAnErrorWithItsLine() {
        var s = Data("abc123\nQx,9!z\n".utf8); s.append(contentsOf: [0x61, 0xFF, 0x0A])
        let e1 = recallError { _ = try StringSet.parse(s, file: "strings.txt") }
        #expect(e1?.line == 3 && e1?.message.contains("not UTF-8") == true)
        var c = Data("label,s1\nstring,abc\n".utf8)
        c.append(contentsOf: [0x31, 0x2C, 0xED, 0xA0, 0x80, 0x0A])  // a surrogate
        let e2 = recallError { _ = try CSVLines.parse(c, file: "cohort.csv") }
        #expect(e2?.file == "cohort.csv" && e2?.line == 3)
    }

    /// The time limit only stops a hang; the line limit itself is shown by the error.
    @Test(.timeLimit(.minutes(1))) func aHugeLineInADesktopCohortFailsWithItsLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("recall-huge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var data = Data("label,s1\nstring,abc\n".utf8)
        data.append(Data(repeating: 0x31, count: 100_000_000))
        data.append(contentsOf: [0x0A])
        let url = dir.appendingPathComponent("cohort.csv")
        try data.write(to: url)
        let e = recallError { _ = try DesktopCohort.load(url, display: "cohort.csv") }
        #expect(e?.file == "cohort.csv")
        #expect(e?.line == 3)
        #expect(e?.message.contains("longer than") == true)
    }
}
