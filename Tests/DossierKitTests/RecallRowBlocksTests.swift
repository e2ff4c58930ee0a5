import Foundation
@testable import RecallStudy
import Render
import Testing
@testable import DossierKit

/// The study summary writes the row-per-participant files by concatenating each
/// participant's stored row blocks (docs/incremental.md); the bytes must be those of the
/// whole-table writers over every participant's rows.
@Suite struct RecallRowBlocksTests {
    static let strings = StringSet(strings: ["abc123", "Qx,9!z", "m3)61fHw", "ua7t?C2#", "p4d46*3TXY", "q80<u?c2mv",
                                             "d51)u4;X3wrf", "6n04%Ei'Hm3V", "m#o)fp^2aRf207", "4i_55fQ$2Mnh30"])

    static func participants(_ n: Int, seed: UInt64, tapsOnlyEvery: Int = 4) throws -> [StudyParticipant] {
        try (1...max(1, n)).prefix(n).map { i in
            var sim = Simulator(strings: strings, seed: seed + UInt64(i / 3))
            sim.tapsOnly = i % tapsOnlyEvery == 0
            let log = try NativeLog.parse(Data(sim.log(index: i).utf8), file: "S\(i).jsonl")
            let r = try Analyzer.analyze(log, strings: strings)
            return StudyParticipant(summary: ParticipantSummary(r), detail: ParticipantDetail(r, strings: strings),
                                    sourceFile: "data/logs/S\(i) \"x\".jsonl")
        }
    }

    /// The streamed files of `ps`, each participant's blocks through their stored form;
    /// `folded`: the dynamics key sequences counted by ``DynamicsKeyCounts`` and the
    /// contributions' sequences dropped, as the summary does.
    static func streamed(_ ps: [StudyParticipant], bom: Bool = false, folded: Bool = false) throws -> [String: Data] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rowblocks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try OutputTree(staging: dir)
        let sink = OutputStreams(tree: tree, owner: "t", csvBOM: bom)
        let blobs = ps.map { RecallRowBlocks($0).encoded() }
        var keys = DynamicsKeyCounts()
        for p in ps { keys.add(p.contribution) }
        try RecallStudyFiles.stream(participants: ps.map { p in
            var c = p.contribution
            if folded { c.sequences = [] }
            return StudyParticipant(summary: p.summary, contribution: c, sourceFile: p.sourceFile)
        }, keys: folded ? keys : nil, blocks: { RecallRowBlocks.decode(blobs[$0])! }, dir: "recall/", to: sink)
        var out: [String: Data] = [:]
        for f in sink.written { out[f.path] = FileManager.default.contents(atPath: dir.path + "/" + f.path) }
        return out
    }

    static func reference(_ ps: [StudyParticipant]) -> [String: Data] {
        let study = StudyTable.table(name: "t", strings: strings, participants: ps.map(\.summary))
        var out: [String: Data] = [:]
        for f in RecallStudyFiles.files(strings: strings, participants: ps, appendixB: study) { out[f.path] = f.data }
        return out
    }

    @Test(arguments: [(0, false), (1, false), (9, false), (0, true), (1, true), (9, true)])
    func concatenatedBlocksEqualTheWholeTableWriters(count: Int, folded: Bool) throws {
        let ps = try Self.participants(count, seed: 21)
        let ours = try Self.streamed(ps, folded: folded), theirs = Self.reference(ps)
        #expect(ours.count == 18)
        for (path, data) in ours {
            #expect(data == theirs[path], "\(path) differs")
        }
    }

    /// Folding contributions one at a time gives `DynamicsTable.mostCommon` for every
    /// string: sums over participants, ties to the sequence seen first.
    @Test func foldedKeyCountsEqualMostCommon() throws {
        var rng = SeededNumbers(state: 17)
        let alphabet = [["a"], ["a", "b"], ["b", "a"], ["a", "b", "c"], ["c"], []]
        for round in 0..<200 {
            let cs: [StudyContribution] = (0..<(rng.next() % 7)).map { _ in
                var c = StudyContribution()
                var seen = Set<[Int]>()
                for _ in 0..<(rng.next() % 6) {
                    let s = rng.next() % 12, k = rng.next() % alphabet.count
                    guard seen.insert([s, k]).inserted else { continue }   // distinct per participant, as built
                    c.sequences.append(.init(string: s, keys: alphabet[k], count: 1 + rng.next() % 3))
                }
                return c
            }
            var fold = DynamicsKeyCounts()
            for c in cs { fold.add(c) }
            let ref = (1...StringSet.count).map { DynamicsTable.mostCommon(string: $0, cs) }
            #expect(fold.mostCommon == ref, "round \(round)")
        }
        // The test participants (real timings) too.
        let ps = try Self.participants(9, seed: 21)
        var fold = DynamicsKeyCounts()
        for p in ps { fold.add(p.contribution) }
        #expect(
            fold.mostCommon
                == (1...StringSet.count).map { DynamicsTable.mostCommon(string: $0, ps.map(\.contribution)) })
    }

    @Test func aByteOrderMarkStartsEachStreamedCSV() throws {
        let ps = try Self.participants(2, seed: 3)
        let ours = try Self.streamed(ps, bom: true), theirs = Self.reference(ps)
        #expect(ours["recall/entries.csv"] == Data(CSVWriter.bom) + theirs["recall/entries.csv"]!)
        #expect(ours["recall/entries.json"] == theirs["recall/entries.json"])
    }

    @Test func blocksAndContributionsSurviveTheirStoredForms() throws {
        for p in try Self.participants(5, seed: 8) {
            let b = RecallRowBlocks(p)
            let again = try #require(RecallRowBlocks.decode(b.encoded()))
            #expect(again.csv == b.csv && again.json == b.json)
            #expect(
                again.dynamics.map { $0.csv } == b.dynamics.map { $0.csv }
                    && again.dynamics.map { $0.keys } == b.dynamics.map { $0.keys })
            let c = p.contribution.compactBytes()
            #expect(c.withUnsafeBytes { StudyContribution(compactBytes: $0) } == p.contribution)
            var cut = b.encoded(); cut.removeLast()
            #expect(RecallRowBlocks.decode(cut) == nil)
        }
    }
}
