import Foundation
import Testing
@testable import RecallStudy

@Suite struct SimulatorTests {
    @Test func sameSeedSameLogsDifferentSeedDifferentLogs() throws {
        let strings = try studyStrings()
        let a = Simulator(strings: strings, seed: 7), b = Simulator(strings: strings, seed: 7),
            c = Simulator(strings: strings, seed: 8)
        #expect(a.log(index: 3) == b.log(index: 3))
        #expect(a.log(index: 3) != c.log(index: 3))
        #expect(a.log(index: 3) != a.log(index: 4))
    }

    @Test func simulatedLogsAreValidAndShowTheModelledBehaviour() throws {
        let strings = try studyStrings()
        let sim = Simulator(strings: strings, seed: 2026)
        var results: [ParticipantResult] = []
        for i in 1...40 {
            let log = try NativeLog.parse(Data(sim.log(index: i).utf8), file: "S\(i).jsonl")
            let r = try Analyzer.analyze(log, strings: strings)
            #expect(r.warnings.isEmpty, "\(r.warnings)")
            results.append(r)
        }
        let complete = results.filter(\.complete)
        #expect(complete.count >= 25 && complete.count < 40)         // some sessions abandoned
        #expect(results.contains { $0.strings.contains { $0.memorizeViews.count >= 2 } })
        #expect(results.contains { $0.strings.contains { $0.rekeys > 0 } })
        #expect(results.contains { $0.strings.contains { $0.deletions > 0 } })
        #expect(results.contains { $0.strings.contains { $0.verifyFailures > 0 } })
        for r in complete {
            #expect(r.strings.allSatisfy { $0.completed && $0.entries.count >= 10 })
            #expect(r.medianHold != nil)
        }
        // Longer strings take longer on average (the model's basic property).
        let short = complete.compactMap { $0.strings[0].meanEntrySeconds }       // 6 characters
        let long = complete.compactMap { $0.strings[9].meanEntrySeconds }        // 14 characters
        let shortMean: Double = short.reduce(0, +) / Double(short.count)
        let longMean: Double = long.reduce(0, +) / Double(long.count)
        #expect(shortMean < longMean)
    }
}
