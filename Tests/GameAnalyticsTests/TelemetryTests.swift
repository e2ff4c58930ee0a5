import Foundation
import Testing
@testable import GameAnalytics

func tempDir() throws -> URL {
    let u = FileManager.default.temporaryDirectory.appendingPathComponent("game-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
    return u
}

@Suite struct TelemetryTests {
    @Test func jsonLinesRoundTrip() throws {
        let cohort = Simulator(players: 12, seed: 4).run()
        var r = TelemetryJSONL.Reader()
        try r.add(text: TelemetryJSONL.text(for: cohort), file: "c.jsonl")
        #expect(r.cohort() == cohort)
    }

    @Test func sqliteAndJSONLinesGiveIdenticalResults() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cohort = Simulator(players: 40, seed: 9).run()
        let jsonl = dir.appendingPathComponent("c.jsonl")
        try TelemetryJSONL.text(for: cohort).write(to: jsonl, atomically: true, encoding: .utf8)
        let fromText = try TelemetryJSONL.read(files: [jsonl])
        let dbPath = dir.appendingPathComponent("study.sqlite").path
        do {
            let db = try StudyDatabase(path: dbPath)
            try db.store(cohort: fromText)
        }
        let fromDB = try StudyDatabase(path: dbPath, create: false).readCohort()
        #expect(fromDB == fromText)
        let enc = JSONEncoder()
        enc.outputFormatting = .sortedKeys
        let a = try enc.encode(CohortAnalyzer.analyze(fromText))
        let b = try enc.encode(CohortAnalyzer.analyze(fromDB))
        #expect(a == b)
    }

    @Test func readerNamesTheLineOfABadRecord() {
        let good = #"{"type":"survey","player":"p1","complete":true,"diagnosed":false,"age":30,"gender":"female"}"#
        let bad =
            // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
            #"{"type":"session","player":"p1","session":1,"start":0,"end":5000,"score":0,"obstacles":[[1000,1000,"crate"],[3000,1500,"bird"]]}"#
            // END DATA TABLE
        var r = TelemetryJSONL.Reader()
        #expect(
            throws: GameError(
                file: "x.jsonl", line: 3,
                "session 1 obstacle 2: interval 1500 does not match the time since the previous obstacle (2000)")
        ) {
            try r.add(text: good + "\n\n" + bad + "\n", file: "x.jsonl")
        }
    }

    @Test func readerRejectsBadValues() {
        let cases: [(String, String)] = [
            (#"{"type":"game","player":"p1"}"#, "unknown record type"),
            (#"{"type":"survey","player":"p 1","complete":false}"#, "player id"),
            (#"{"type":"survey","player":"p1","complete":true,"diagnosed":false,"age":30,"gender":"f"}"#, "gender"),
            (#"{"type":"survey","player":"p1","complete":true,"age":30,"gender":"male"}"#, "diagnosed"),
            (#"{"type":"survey","player":"p1","complete":"yes"}"#, "'complete' must be true or false"),
            (
                #"{"type":"session","player":"p1","session":1,"start":0,"end":100,"score":0,"taps":[50,20]}"#,
                "goes backwards"
            ),
            (
                #"{"type":"session","player":"p1","session":1,"start":0,"end":100,"score":0,"taps":[500]}"#,
                "after the session end"
            ),
            (
                #"{"type":"session","player":"p1","session":1,"start":0,"end":100,"score":0,"taps":[1.5]}"#,
                "whole number"
            ),
            (#"{"type":"session","player":"p1","session":1,"start":0,"end":100,"score":0,"extra":1}"#, "unknown field"),
            ("[1,2]", "not a JSON object"),
        ]
        for (line, fragment) in cases {
            var r = TelemetryJSONL.Reader()
            do {
                try r.add(text: line, file: "f")
                Issue.record("accepted: \(line)")
            } catch {
                #expect(error.message.contains(fragment), "\(error.message) should mention \(fragment)")
                #expect(error.line == 1)
            }
        }
    }

    @Test func anIncompleteSurveyIsReplacedByTheCompleteOne() throws {
        var r = TelemetryJSONL.Reader()
        try r.add(text: """
        {"type":"survey","player":"p1","complete":false,"age":20}
        {"type":"survey","player":"p1","complete":true,"diagnosed":true,"medicated":false,"age":20,"gender":"other"}
        """, file: "f")
        #expect(r.cohort().players[0].survey?.complete == true)
        #expect(Group.of(r.cohort().players[0].survey) == .adhd)
    }
}

@Suite struct MeasureTests {
    @Test func tapsAreMatchedToObstacles() {
        // Obstacles at 1000, 3000, 7000 ms. Taps: 1050 anticipatory, 1300 hit (300 ms),
        // 2500 outside every window, 3400 hit (400 ms), 3500 extra; nothing for 7000.
        let s = Session(index: 1, start: 0, end: 9000, score: 20,
                        obstacles: [Obstacle(t: 1000, interval: 1000, kind: "crate"),
                                    Obstacle(t: 3000, interval: 2000, kind: "bird"),
                                    Obstacle(t: 7000, interval: 4000, kind: "spike")],
                        taps: [1050, 1300, 2500, 3400, 3500])
        let m = Measures.compute(Player(id: "p", survey: nil, sessions: [s]))
        #expect(m.hits == 2 && m.omissions == 1 && m.anticipatory == 1 && m.commissions == 2)
        #expect(m.hitRTs == [300, 400])
        #expect(m.hitRTMean == 350)
        #expect(abs(m.omissionRate! - 1.0 / 3) < 1e-12)
        // 9 s played: 2 commissions per 0.15 min.
        #expect(abs(m.commissionRate! - 2 / 0.15) < 1e-9)
        // Windows cover 3000 ms, so 6 one-second non-target slots; log-linear correction.
        let expected = Special.normalQuantile(2.5 / 4) - Special.normalQuantile(2.5 / 7)
        #expect(abs(m.dPrime! - expected) < 1e-12)
        // RT rises by 100 ms per second of interval here (300 at 1 s, 400 at 2 s).
        #expect(abs(m.isiSlope! - 100) < 1e-9)
    }

    @Test func aWindowEndsWhenTheNextObstacleAppears() {
        let s = Session(index: 1, start: 0, end: 5000, score: 0,
            obstacles: [Obstacle(t: 1000, interval: 1000, kind: "a"), Obstacle(t: 1500, interval: 500, kind: "a")],
                        taps: [1700])
        let m = Measures.compute(Player(id: "p", survey: nil, sessions: [s]))
        #expect(m.hitRTs == [200])
        #expect(m.omissions == 1)
    }
}
