import Foundation
import Testing
@testable import RecallStudy

@Suite struct StudyDataTests {
    @Test func statisticsAreThePandasDefaults() {
        let v: [Double] = [7, 1, 3, 10, 4]
        #expect(StudyStats.mean(v) == 5)
        #expect(abs(StudyStats.sd(v)! - 3.5355339059327378) < 1e-12)      // n − 1
        #expect(StudyStats.quantile(v, 0.5) == 4)
        #expect(StudyStats.quantile(v, 0.25) == 3)                         // type 7
        #expect(StudyStats.quantile([1, 2, 3, 4], 0.25) == 1.75)
        #expect(StudyStats.iqr([1, 2, 3, 4]) == 1.5)
        #expect(StudyStats.sd([5]) == nil)
        #expect(StudyStats.mean([]) == nil)
    }

    @Test func editDistanceCountsCharacters() {
        #expect(StudyStats.editDistance("kitten", "sitting") == 3)
        #expect(StudyStats.editDistance("", "abc") == 3)
        #expect(StudyStats.editDistance("a\u{308}b", "\u{E4}b") == 0)
        let near = StudyStats.nearest(" abc123", in: ["Qx,9!z", "abc123", "abc12"])
        #expect(near.distance == 1 && near.string == 2)
    }

    @Test func cmuTokensAreUniqueAndNamed() {
        #expect(
            DynamicsTable.tokens([".", "t", "i", "e", "5", "Shift", "R"]) == [
                "period", "t", "i", "e", "5", "Shift", "R"
            ])
        #expect(DynamicsTable.tokens(["5", "5", "$", "⌫", "5"]) == ["5", "5#2", "u0024", "Back", "5#3"])
    }

    @Test func detailSurvivesItsCompactForm() throws {
        let log = try NativeLog.load(fixture("golden-session.jsonl"), display: "golden.jsonl")
        let r = try Analyzer.analyze(log, strings: try studyStrings())
        let d = ParticipantDetail(r, strings: try studyStrings())
        #expect(!d.entries.isEmpty && !d.recall.isEmpty && !d.timings.isEmpty)
        let bytes = d.compactBytes()
        let back = bytes.withUnsafeBytes { ParticipantDetail(compactBytes: $0) }
        #expect(back == d)
        let cut = Array(bytes.dropLast())
        #expect(cut.withUnsafeBytes { ParticipantDetail(compactBytes: $0) } == nil)
        // The recall rows: " abc123" is not a match but one edit from string 1.
        #expect(d.recall.map(\.matched) == [nil, 2])
        #expect(d.recall.map(\.editDistance) == [1, 0])
        #expect(d.recall.map(\.nearest) == [1, 2])
    }

    @Test func dynamicsRowsSatisfyHPlusUDEqualsDD() throws {
        let log = try NativeLog.load(fixture("golden-session.jsonl"), display: "golden.jsonl")
        let r = try Analyzer.analyze(log, strings: try studyStrings())
        let p = StudyParticipant(
            summary: ParticipantSummary(r), detail: ParticipantDetail(r, strings: try studyStrings()),
            sourceFile: "g.jsonl")
        let (t, _) = DynamicsTable.table(string: 1, [p])
        #expect(Array(t.header.prefix(3)) == ["subject", "sessionIndex", "rep"])
        #expect(t.header.last == "source_file")
        #expect(!t.rows.isEmpty)
    }
}

/// `formatSeconds` rounds in binary only where that gives `%.2f`'s digits: compared with
/// the printf reference on halves, near-halves, negatives, tiny and huge values.
struct FormatSecondsFastPathTests {
    @Test func fastPathEqualsPrintfReference() {
        var values: [Double] = [
            0, -0.0, 0.004, -0.004, 0.005, 0.015, 0.125, 0.135, 1.005, 2.675, -2.675, 1.3, 5, 12.345,
            9_999_999.994, 9_999_999.996, 1e7, -1e7, 1e300, 0.1 + 0.2, 1e-300
        ]
        for k in -3000...3000 { values.append(Double(k) / 1000); values.append(Double(k) / 200) }
        var g = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            values.append(Double.random(in: -100...100, using: &g))
            values.append(Double(Int.random(in: 0...2_000_000, using: &g)) / 8)        // exact halves
            values.append(Double(Int.random(in: 0...2_000_000, using: &g)) / 1000 / 7)
        }
        for v in values { #expect(formatSeconds(v) == formatSecondsPrintf(v), "\(v)") }
    }
}

/// A participant's per-string mean, kept for the study tables, is rounded as `%.2f` rounds
/// it: printed again with two decimals it gives the digits `%.2f` gives for the unrounded
/// mean (a mean of 45 ms is 0.04 s in every table, as in the participant's own report).
struct SummaryMeanRoundingTests {
    @Test func keptMeanPrintsAsPrintfOfTheMean() {
        #expect(ParticipantSummary.hundredthsAsPrintf(Double(90) / 2 / 1000) == 0.04)
        #expect(ParticipantSummary.hundredthsAsPrintf(0.125) == 0.12)
        #expect(ParticipantSummary.hundredthsAsPrintf(2.675) == 2.67)
        var values: [Double] = []
        for ms in 0...20_000 { values.append(Double(ms) / 1000); values.append(Double(ms) / 3 / 1000) }
        for v in values {
            let kept = ParticipantSummary.hundredthsAsPrintf(v)
            #expect(formatSeconds(kept) == formatSecondsPrintf(v), "\(v)")
        }
    }
}
