import Testing
@testable import RecallStudy

@Suite struct SummaryCodingTests {
    static func sample(nils: Bool) -> ParticipantSummary {
        let s = ParticipantSummary.PerString(
            n: 3, reached: true, completed: !nils, meanEntrySeconds: nils ? nil : 12.34,
            entries: 5, incorrectEntries: 2, rekeys: 1, deletions: 7, finalCorrect: 1,
            memorizeViews: 4, verifyFailures: 6, entryTotalMs: nils ? nil : 98_765,
            medianDownDown: nils ? nil : -0.5)
        return ParticipantSummary(participant: "Sé 1137", source: nils ? .desktop : .native, complete: !nils,
                                  sessionTotalMs: nils ? nil : 1_234_567, lastEventMs: Int.max, warnings: 9,
                                  strings: [s, s], reachedRecall: true, recallFields: 10, recalled: [1, 3, 10],
                                  medianHold: nils ? nil : 101.25, medianDownDown: .infinity, medianUpDown: 0,
                                  medianUpUp: nils ? nil : 3.5e-7)
    }

    @Test func roundTripsEveryFieldAndRefusesDamage() {
        for nils in [false, true] {
            let s = Self.sample(nils: nils)
            let bytes = s.compactBytes()
            let back = bytes.withUnsafeBytes { ParticipantSummary(compactBytes: $0) }
            #expect(back == s)
            for cut in 0..<bytes.count {
                #expect(
                    bytes.prefix(cut).withUnsafeBytes { ParticipantSummary(compactBytes: UnsafeRawBufferPointer($0)) }
                        == nil)
            }
            #expect((bytes + [0]).withUnsafeBytes { ParticipantSummary(compactBytes: $0) } == nil)
        }
    }
}
