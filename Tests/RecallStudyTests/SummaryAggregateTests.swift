import Foundation
import Testing
@testable import RecallStudy

/// The study summary folds each participant into a ``StudyAggregate`` as its record is
/// decoded; every table and statistic must be exactly (bits included) what the
/// whole-list functions give over the same participants.
@Suite struct SummaryAggregateTests {
    static func participants(_ n: Int, seed: UInt64) throws -> (StringSet, [StudyParticipant]) {
        let strings = try studyStrings()
        let ps = try (0..<n).map { i in
            var sim = Simulator(strings: strings, seed: seed + UInt64(i))
            sim.tapsOnly = i % 4 == 3
            let log = try NativeLog.parse(Data(sim.log(index: i + 1).utf8), file: "S\(i).jsonl")
            let r = try Analyzer.analyze(log, strings: strings)
            return StudyParticipant(summary: ParticipantSummary(r), detail: ParticipantDetail(r, strings: strings),
                                    sourceFile: "data/S\(i).jsonl")
        }
        return (strings, ps)
    }

    static func aggregate(_ strings: StringSet, _ ps: [StudyParticipant]) -> StudyAggregate {
        var a = StudyAggregate(name: "This study", strings: strings)
        for (i, p) in ps.enumerated() { a.add(slug: "S\(i)", p.summary, p.contribution, sourceFile: p.sourceFile) }
        return a
    }

    @Test(arguments: [0, 1, 7, 25])
    func tablesEqualTheWholeListFunctions(count: Int) throws {
        var (strings, ps) = try Self.participants(count, seed: 40)
        if count == 7 {
            // Incomplete participants, and an entry time beyond 32 bits.
            ps[2].summary.complete = false
            ps[5].summary.complete = false
            ps[3].contribution.entries[0].duration = 5_000_000_000
            // A string not reached but with Verify failures, and a string listed twice
            // (first not reached): the page counts the first reached one, strings.csv the first.
            ps[1].summary.strings[0].reached = false
            ps[1].summary.strings[0].verifyFailures = 3
            var again = ps[4].summary.strings[1]
            again.entries += 5; again.verifyFailures += 2
            ps[4].summary.strings[1].reached = false
            ps[4].summary.strings.append(again)
        }
        let a = Self.aggregate(strings, ps)
        #expect(a.stringsTable(strings) == StudyTables.strings(strings, ps))
        #expect(a.appendixB == StudyTable.table(name: "This study", strings: strings, participants: ps.map(\.summary)))
        #expect(a.completeCount == ps.filter(\.summary.complete).count)
        for (r, p) in zip(a.rows, ps) {
            let times = p.contribution.entries.map { Double($0.duration) / 1000 }
            #expect(
                r.entryCount == times.count && r.meanEntry == StudyStats.mean(times)
                    && r.sdEntry == StudyStats.sd(times))
            #expect(
                r.participant == p.summary.participant && r.sourceFile == p.sourceFile
                    && r.complete == p.summary.complete)
        }
        // The page's per-string figures: the first reached PerString of each string.
        for n in 1...StringSet.count {
            let reached = ps.compactMap { $0.summary.strings.first { $0.n == n && $0.reached } }
            let s = a.strings[n - 1]
            #expect(s.reached == reached.count && s.reachedEntries == reached.reduce(0) { $0 + $1.entries })
            #expect(s.reachedIncorrect == reached.reduce(0) { $0 + $1.incorrectEntries })
            #expect(s.reachedRekeys == reached.reduce(0) { $0 + $1.rekeys })
            #expect(s.reachedVerifyFailures == reached.reduce(0) { $0 + $1.verifyFailures })
            let times = ps.flatMap { $0.contribution.entries.filter { $0.string == n }.map(\.duration) }
            #expect(s.times.map { $0 } == times)
        }
    }

    @Test func packedTimesKeepEveryValueInOrder() {
        var p = PackedTimes()
        let values = [0, 1, -5, Int(Int32.max), 12_345, Int(Int32.max) + 1, 7, Int(Int32.min) - 1, 3]
        for (i, v) in values.enumerated() {
            p.append(v)
            #expect(p.map { $0 } == Array(values[...i]))
        }
        #expect(p.count == values.count)
        // Across chunks, then beyond 32 bits.
        var q = PackedTimes()
        let many = (0..<(2 * PackedTimes.chunkSize + 3)).map { $0 * 7 - 100 }
        for v in many { q.append(v) }
        #expect(q.map { $0 } == many && q.count == many.count)
        q.append(1 << 40)
        #expect(q.map { $0 } == many + [1 << 40] && q.count == many.count + 1)
    }
}
