import Foundation
import Testing
@testable import GameAnalytics

/// Range validation (#14), data-edge decisions and small-cell suppression.
@Suite struct EdgeTests {
    func session(_ f: (inout Session) -> Void) -> Session {
        var s = Session(
            index: 1, start: 0, end: 60_000, score: 10, obstacles: [Obstacle(t: 1000, interval: 1000, kind: "crate")],
            taps: [1300])
        f(&s)
        return s
    }

    @Test func hugeValuesAreProblemsNotTraps() {
        #expect(sessionProblem(session { $0.score = Int.max })?.contains("above") == true)
        #expect(sessionProblem(session { $0.start = Int.min; $0.end = Int.max })?.contains("outside") == true)
        #expect(sessionProblem(session { $0.end = TelemetryLimits.maxClock })?.contains("24 h") == true)
        #expect(sessionProblem(session { $0.taps = [-5] })?.contains("before the session start") == true)
        #expect(sessionProblem(session { $0.index = Int.max })?.contains("must be 1…") == true)
        // Measures of unvalidated extremes do not trap either.
        let p = Player(
            id: "p", survey: nil,
            sessions: [
                session {
                    $0.start = Int.min; $0.end = Int.max; $0.score = Int.max
                },
                session {
                    $0.index = 2; $0.score = Int.max
                }
            ])
        let m = Measures.compute(p)
        #expect(m.bestScore == Int.max)
    }

    /// A repeated field is refused at any depth and in any spelling (the shared reader's
    /// rule, docs/json-lines.md); the same key in two different objects is not repeated.
    @Test func duplicateKeysAreFound() {
        func message(_ line: String) -> String {
            var r = TelemetryJSONL.Reader()
            do { try r.add(text: line + "\n", file: "d.jsonl"); return "" } catch { return error.description }
        }
        let survey = #"{"type":"survey","player":"p","complete":true"#
        #expect(message(survey + #","age":3,"age":4}"#).contains("d.jsonl:1:55: the field 'age' appears twice"))
        #expect(message(survey + #","x":{"a":1,"a":2}}"#).contains("the field 'a' appears twice"))
        #expect(message(survey + #","x":[{"a":1},{"a":1,"a":2}]}"#).contains("the field 'a' appears twice"))
        #expect(message(survey + #","gender":"x\",\"gender\":","\u0067ender":"f"}"#)
            .contains("the field 'gender' appears twice"))
        // Not repeated: the reader goes on to the record's own rules.
        #expect(message(survey + #","x":{"a":1},"y":[{"a":1}]}"#).contains("unknown field 'x'"))
    }

    @Test func suppressionHidesSmallCellsAndTheirComplements() {
        // A 2×2 table with margins: 3 | 10 → 13 ; 12 | 20 → 32 ; 15 | 30 → 45
        let v = [3, 10, 12, 20, 13, 32, 15, 30, 45]
        let eq: [Suppression.Equation] = [.init(parts: [0, 1], total: 4), .init(parts: [2, 3], total: 5),
                                          .init(parts: [0, 2], total: 6), .init(parts: [1, 3], total: 7),
                                          .init(parts: [4, 5], total: 8), .init(parts: [6, 7], total: 8)]
        let st = Suppression.apply(values: v, equations: eq)
        #expect(st[0] == .primary)
        for e in eq {
            let hidden = e.parts.filter { st[$0] != .shown }.count + (st[e.total] != .shown ? 1 : 0)
            #expect(hidden == 0 || hidden >= 2)
        }
        #expect(Suppression.determinedEntry(values: v, status: st, equations: eq) == nil)
        #expect(v.indices.allSatisfy { st[$0] != .shown || v[$0] >= 5 })
    }
}
