import Foundation
import Testing
@testable import GameAnalytics

/// Issue #35: the omission window cut by the session end, and telemetry lines that are not
/// one JSON object named for what they are (docs/game-measures.md, docs/game-telemetry.md).
@Suite struct OmissionCensoringAndTelemetryLineTests {
    /// An omission whose window the session end cuts is censored at duration + 1 − a, the
    /// window's exclusive end: a tap at `duration` itself is still a hit.
    @Test func anOmissionCutByTheSessionEndIsCensoredAtDurationPlusOneMinusA() {
        let duration = 60_000
        for a in [duration - 999, duration - 500, duration - 150, duration] {
            let s = Session(
                index: 1, start: 0, end: duration, score: 0, obstacles: [Obstacle(t: a, interval: a, kind: "crate")],
                taps: [])
            let trial = Measures.trials(s).trials[0]
            #expect(trial.rt == nil)
            #expect(trial.window == duration + 1 - a)
            // The longest reaction that window could have seen is a hit at `duration`.
            let hit = Session(
                index: 1, start: 0, end: duration, score: 0, obstacles: [Obstacle(t: a, interval: a, kind: "crate")],
                taps: [duration])
            let rt = Measures.trials(hit).trials[0].rt
            #expect(rt == nil || rt! < trial.window)
        }
        // A full window stays 1,000 ms; one cut by the next obstacle ends there.
        let full = Session(index: 1, start: 0, end: duration, score: 0,
            obstacles: [
                Obstacle(t: 1000, interval: 1000, kind: "a"), Obstacle(t: 1600, interval: 600, kind: "b"),
                Obstacle(t: 5000, interval: 3400, kind: "c")
            ], taps: [])
        #expect(Measures.trials(full).trials.map(\.window) == [600, 1000, 1000])
        let cut = Session(
            index: 1, start: 0, end: duration, score: 0,
            obstacles: [Obstacle(t: duration - 400, interval: 1, kind: "a")], taps: [])
        #expect(Measures.censorPoints(Measures.trials(cut).trials) == [Double(401)])
    }

    func message(_ line: String) -> String {
        var r = TelemetryJSONL.Reader()
        do { try r.add(text: line + "\n", file: "c.jsonl"); return "" } catch { return error.description }
    }

    @Test func linesThatAreNotOneJSONObjectNameTheirProblemAndLine() {
        let digits = String(repeating: "9", count: 400)
        let huge = #"{"type":"session","player":"p1","session":1,"start":"# + digits + #","end":5,"score":0}"#
        let m1 = message(huge)
        #expect(m1.contains("c.jsonl:1") && m1.contains("400 digits"), "\(m1)")
        #expect(!m1.contains("not a JSON object"))
        let exp = #"{"type":"session","player":"p1","session":1e400,"start":0,"end":5,"score":0}"#
        let m2 = message(exp)
        #expect(m2.contains("c.jsonl:1") && m2.contains("too large for a double") && m2.contains("1e400"), "\(m2)")
        let nul = "{\"type\":\"survey\",\"player\":\"p\u{0}1\",\"complete\":true}"
        let m3 = message(nul)
        #expect(m3.hasPrefix("c.jsonl:1:29: a raw control character U+0000"), "\(m3)")
        #expect(message("[1, 2]").contains("is an array"))
        #expect(message(#"{"type":"survey"} x"#).contains("text after the end"))
        #expect(message(#"{"type":"survey""#).contains("ends inside an object"))
        // On the second line of a file, the second line is named.
        var r = TelemetryJSONL.Reader()
        do { try r.add(text: "\n" + exp + "\n", file: "c.jsonl"); Issue.record("accepted") } catch {
            #expect(error.description.contains("c.jsonl:2"), "\(error.description)")
        }
    }
}
