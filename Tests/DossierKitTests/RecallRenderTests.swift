import Foundation
@testable import RecallStudy
import Render
import Testing
@testable import DossierKit

/// The integer path of `RecallRender.seconds(ms:)` against `%.2f` (`formatSecondsPrintf`),
/// the reference path it stands in for (docs/perf-study.md): every count to 25 s, the
/// counts ending in 5 (decimal ties; `0.125`, `1.375` … are exact ties in binary too,
/// which printf rounds half to even) far beyond it, and the bounds; a negative count
/// reads with U+2212, as every number a page shows.
struct RecallRenderTests {
    @Test func secondsFromMillisecondsMatchFormatSeconds() {
        var values =
            Array(0...25_000) + [
                -1, -5, -15, -1234, 999_995, 1_000_005, 86_400_000, 3_600_004, 999_999_999_999,
                999_999_999_995, 999_999_999_875, 1_000_000_000_005, 1_000_000_125, 123_456_789_625
            ]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            values.append(Int.random(in: 0...10_000_000_000, using: &g))
            values.append(Int.random(in: 0...100_000_000_000, using: &g) * 10 + 5)
            values.append(
                Int.random(in: 0...1_000_000_000, using: &g) * 1000 + [125, 375, 625, 875].randomElement(using: &g)!)
        }
        for ms in values {
            // Shown to readers: a negative count with U+2212 (`ValueFormat.minus`).
            #expect(RecallRender.seconds(ms: ms) == ValueFormat.minus(formatSecondsPrintf(Double(ms) / 1000)), "\(ms)")
        }
        #expect(RecallRender.seconds(nil as Int?) == "—")
    }

    /// raw.csv written row by row (`rawCSV`) against the table of cells it replaces
    /// (`csv(RawData.table(…))`), for two string sets (one with text needing CSV quoting,
    /// formula neutralising and non-ASCII), key-pair and tap logs, finished and abandoned
    /// sessions, with and without the byte-order mark.
    @Test func rawCSVStreamedAsTheTableOfCells() throws {
        let sets = [StringSet.nistDesktop, try Self.edgeStrings()]
        for s in try Self.simulatedSessions(sets, seed: 40, count: 6) {
            let streamed = RecallRender.rawCSV(log: s.log, result: s.result, strings: s.strings)
            let tabled = RecallRender.csv(RawData.table(log: s.log, result: s.result, strings: s.strings))
            #expect(streamed == tabled, "\(s.label)")
            #expect(CSVWriter.withBOM(streamed, true) == CSVWriter.withBOM(tabled, true))
        }
    }

    /// A string set whose strings need CSV quoting, formula neutralising, non-ASCII
    /// and a backslash.
    static func edgeStrings() throws -> StringSet {
        try StringSet.parse(Data("""
            a,b"c
            =SUM(1)
            -x1
            @me
            +7é
            日本語abc
            x y z
            naïve'q
            "quoted"
            tab\\t;9

            """.utf8), file: "edge.txt")
    }

    /// Simulated sessions for the recall render tests: each string set × key-pair and tap
    /// logs × `count` participants, half of them abandoned.
    static func simulatedSessions(_ sets: [StringSet], seed: UInt64, count: Int) throws
        -> [(label: String, log: SessionLog, result: ParticipantResult, strings: StringSet)] {
        var out: [(label: String, log: SessionLog, result: ParticipantResult, strings: StringSet)] = []
        for (k, strings) in sets.enumerated() {
            for taps in [false, true] {
                var sim = Simulator(strings: strings, seed: seed + UInt64(k))
                sim.tapsOnly = taps
                sim.abandonRate = 0.5
                for index in 1...count {
                    let log = try NativeLog.parse(Data(sim.log(index: index).utf8), file: "p.jsonl")
                    out.append(
                        (
                            "set \(k), taps \(taps), participant \(index)", log,
                            try Analyzer.analyze(log, strings: strings), strings
                        ))
                }
            }
        }
        return out
    }
}
