import Foundation
import Testing
@testable import RecallStudy

@Suite struct NativeLogTests {
    @Test func parsesEveryEventKindWithEscapes() throws {
        // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
        let log = try parseLog(header + "\n" + #"""
        {"t":5,"type":"page","page":"memorize","string":1}
        {"t":6,"type":"touch","x":10.5,"y":-2,"target":"field"}
        {"t":7,"type":"focus","field":1}
        {"t":8,"type":"key","key":"\"","action":"down","text":"a\"\\\u00e9\ud83d\ude00","extra":{"nested":[1,2,{"a":null}]}}
        {"t":9,"type":"key","key":"\"","action":"up"}
        {"t":10,"type":"button","button":"verify","result":"not-ok"}
        {"t":11,"type":"fields","values":["x"]}
        {"t":12,"type":"close"}
        """# + "\n")
        // END DATA TABLE
        #expect(log.participant == "P1")
        #expect(log.declaredStrings.count == 10)
        #expect(log.events.count == 8)
        #expect(log.events[1].kind == .touch(x: 10.5, y: -2, target: "field"))
        #expect(log.events[3].kind == .key(label: "\"", action: .down, text: "a\"\\é😀", field: nil))
        #expect(log.events[3].line == 5)
        #expect(log.events[4].kind == .key(label: "\"", action: .up, text: nil, field: nil))
        #expect(log.events[5].kind == .button(.verify, verifyOK: false))
        #expect(log.events[7].kind == .close)
    }

    @Test func writerOutputParsesBackToTheSameEvents() throws {
        let events: [SessionEvent] = [
            .init(t: 1, line: 0, kind: .page(.entry, string: 3)),
            .init(t: 2, line: 0, kind: .key(label: "⌫", action: .tap, text: "a\"b\\c\u{1}", field: 4)),
            .init(t: 3, line: 0, kind: .touch(x: 1.25, y: 300, target: nil)),
            .init(t: 4, line: 0, kind: .fields(Array(repeating: "q,\n", count: 10))),
            .init(t: 5, line: 0, kind: .button(.verify, verifyOK: true)),
        ]
        let text = NativeLogWriter.log(
            participant: "ä\"1", strings: (1...10).map(String.init), device: nil, events: events)
        let log = try parseLog(text)
        #expect(log.participant == "ä\"1")
        #expect(log.events.map(\.kind) == events.map(\.kind))
        #expect(log.events.map(\.t) == [1, 2, 3, 4, 5])
    }

    @Test func timeGoingBackwardsIsAnErrorWithFileAndLine() {
        let e = recallError {
            _ = try parseLog(
                header
                    // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
                    + "\n{\"t\":50,\"type\":\"page\",\"page\":\"ready\"}\n\n{\"t\":40,\"type\":\"focus\",\"field\":1}\n",
                    // END DATA TABLE
                file: "p07.jsonl")
        }
        #expect(e?.file == "p07.jsonl")
        #expect(e?.line == 4)
        #expect(e?.message == "event time 40 goes backwards (previous 50 on line 2)")
    }

    @Test func unknownPageTypeAndStringNumberAreErrors() {
        #expect(
            recallError { _ = try parseLog(header + "\n{\"t\":1,\"type\":\"page\",\"page\":\"settings\"}\n") }?.message
                .contains("unknown page \"settings\"") == true)
        #expect(
            recallError { _ = try parseLog(header + "\n{\"t\":1,\"type\":\"swipe\"}\n") }?.message.contains(
                "unknown event type \"swipe\"") == true)
        let e = recallError {
            _ = try parseLog(header + "\n{\"t\":1,\"type\":\"page\",\"page\":\"entry\",\"string\":11}\n")
        }
        #expect(e?.line == 2)
        #expect(e?.message.contains("string number 11 is outside 1–10") == true)
        #expect(
            recallError {
                _ = try parseLog(
                    header
                        // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
                        + "\n{\"t\":1,\"type\":\"page\",\"page\":\"entry\",\"string\":1}\n{\"t\":2,\"type\":\"focus\",\"field\":11}\n"
                        // END DATA TABLE
                )
            }?.line == 3)
    }

    @Test func participantNumberOver12CharactersIsAnError() {
        let long = header.replacingOccurrences(of: "\"P1\"", with: "\"1234567890123\"")
        let e = recallError { _ = try parseLog(long + "\n") }
        #expect(e?.line == 1)
        #expect(e?.message.contains("13 characters") == true)
        let ok = header.replacingOccurrences(of: "\"P1\"", with: "\"123456789012\"")
        #expect((try? parseLog(ok + "\n")) != nil)
    }

    @Test func cutOffLastLineIsDroppedWithAWarning() throws {
        let log = try NativeLog.load(fixture("truncated-session.jsonl"), display: "trunc.jsonl")
        #expect(log.warnings.count == 1)
        #expect(log.warnings.first?.line == 9)
        #expect(log.events.last?.t == 2300)
        // The same damage in the middle of the file is an error.
        let text = fixtureText("truncated-session.jsonl") + "\n{\"t\":6000,\"type\":\"close\"}\n"
        #expect(recallError { _ = try parseLog(text) }?.line == 9)
    }

    @Test func logStringsDisagreeingWithTheStringsFileIsAnError() throws {
        let other = header.replacingOccurrences(of: "\"Qx,9!z\"", with: "\"Qx,9!y\"")
        let log = try parseLog(other + "\n")
        let e = recallError { _ = try Analyzer.analyze(log, strings: try studyStrings()) }
        #expect(e?.line == 1)
        #expect(e?.message.contains("string 2") == true)
    }
}

@Suite struct NativeLogBadInputTests {
    func message(_ body: String) -> RecallError? {
        recallError { _ = try parseLog(header + "\n" + body + "\n") }
    }

    @Test func unknownButtonActionAndResultAreErrors() {
        #expect(
            message(#"{"t":1,"type":"button","button":"exit"}"#)?.message.contains("unknown button \"exit\"") == true)
        #expect(
            message(#"{"t":1,"type":"key","key":"a","action":"press","text":"a"}"#)?.message.contains(
                "unknown key action \"press\"") == true)
        #expect(
            message(#"{"t":1,"type":"button","button":"verify","result":"maybe"}"#)?.message.contains(
                "unknown Verify result") == true)
    }

    @Test func missingTimeTextOrFieldsCountAreErrors() {
        #expect(message(#"{"type":"close"}"#)?.message.contains("no time") == true)
        #expect(message(#"{"t":1,"type":"key","key":"a"}"#)?.message.contains("needs \"text\"") == true)
        let e = message(
            // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
            "{\"t\":1,\"type\":\"page\",\"page\":\"entry\",\"string\":2}\n{\"t\":2,\"type\":\"fields\",\"values\":[\"a\"]}"
            // END DATA TABLE
        )
        #expect(e?.line == 3)
        #expect(e?.message.contains("10 field(s)") == true)
    }

    @Test func notJSONAndSecondHeaderAreErrors() {
        #expect(message("t=1 page=ready")?.line == 2)
        #expect(message(header)?.message.contains("second session header") == true)
        #expect(
            recallError { _ = try parseLog(#"{"t":1,"type":"page","page":"ready"}"# + "\n") }?.message.contains(
                "session header") == true)
        #expect(recallError { _ = try parseLog("") }?.message.contains("empty") == true)
    }

    @Test func cohortFileErrorsNameTheLine() {
        let head = "label,s1,s2\norder,1,2\nstring,abcdef,ghijkl\n"
        let e = recallError { _ = try DesktopCohort.parse(head + "1,1.5,x\n", file: "c.csv", name: "c") }
        #expect(e?.line == 4)
        #expect(e?.message.contains("not a time") == true)
        let e2 = recallError { _ = try DesktopCohort.parse(head + "1,1.5,2\n1,2,3\n", file: "c.csv", name: "c") }
        #expect(e2?.line == 5)
        #expect(e2?.message.contains("appears twice") == true)
    }
}
