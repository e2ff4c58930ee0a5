#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - The small per-participant record the study summary is built from

/// What one participant contributes to the study summary (kept small: a few hundred bytes).
public struct ParticipantSummary: Sendable, Hashable, Codable {
    public struct PerString: Sendable, Hashable, Codable {
        public var n: Int
        public var reached: Bool
        public var completed: Bool
        /// Mean individual entry time (s): the Appendix B statistic.
        public var meanEntrySeconds: Double?
        public var entries: Int
        public var incorrectEntries: Int
        public var rekeys: Int
        public var deletions: Int
        public var finalCorrect: Int
        public var memorizeViews: Int
        public var verifyFailures: Int
        public var entryTotalMs: Int?
        public var medianDownDown: Double?
    }
    public var participant: String
    public var source: SessionSource
    public var complete: Bool
    public var sessionTotalMs: Int?
    public var lastEventMs: Int
    public var warnings: Int
    public var strings: [PerString]
    /// The Recall page was displayed.
    public var reachedRecall: Bool
    /// Non-empty Recall fields, and the distinct strings recalled exactly.
    public var recallFields: Int
    public var recalled: [Int]
    public var medianHold: Double?
    public var medianDownDown: Double?
    public var medianUpDown: Double?
    public var medianUpUp: Double?

    /// `s` rounded to two decimals as C's `%.2f` rounds it (so 0.045, whose binary value
    /// is just below the half, gives 0.04, as every table that prints it says), not
    /// half away from zero on the binary product (which gave 0.05).
    static func hundredthsAsPrintf(_ s: Double) -> Double {
        if let k = SecondsText.roundedHundredths(s) { return Double(k) / 100 }
        return Double(formatSecondsPrintf(s)) ?? s
    }

    public init(_ r: ParticipantResult) {
        participant = r.participant
        source = r.source
        complete = r.complete
        sessionTotalMs = r.sessionTotalMs
        lastEventMs = r.lastEventMs
        warnings = r.warnings.count
        strings = r.strings.map { s in
            PerString(n: s.number, reached: s.reached, completed: s.completed,
                      meanEntrySeconds: s.meanEntrySeconds.map(Self.hundredthsAsPrintf),
                      entries: s.entries.count, incorrectEntries: s.incorrectEntries, rekeys: s.rekeys,
                      deletions: s.deletions, finalCorrect: s.finalCorrect, memorizeViews: s.memorizeViews.count,
                      verifyFailures: s.verifyFailures, entryTotalMs: s.entryTotalMs, medianDownDown: s.medianDownDown)
        }
        reachedRecall = r.recall != nil
        recallFields = r.recall?.fields.count ?? 0
        recalled = r.recall?.stringsRecalled ?? []
        medianHold = r.medianHold
        medianDownDown = r.medianDownDown
        medianUpDown = r.medianUpDown
        medianUpUp = r.medianUpUp
    }
}

public enum StudyTable {
    /// The study's own Appendix B table: per participant the mean entry time of each
    /// string (seconds, two decimals), columns by length; complete participants (Thank
    /// You reached) apart from incomplete ones; participants in the given order.
    public static func table(name: String, strings: StringSet, participants: [ParticipantSummary]) -> CohortTable {
        let cols = CohortTable.columns(for: strings)
        var complete: [CohortTable.Participant] = [], incomplete: [CohortTable.Participant] = []
        for p in participants {
            let r = row(p, columns: cols)
            if p.complete { complete.append(r) } else { incomplete.append(r) }
        }
        return CohortTable(name: name, columns: cols, complete: complete, incomplete: incomplete)
    }

    /// One participant's row: the mean entry time of each column's string.
    public static func row(_ p: ParticipantSummary, columns: [CohortTable.Column]) -> CohortTable.Participant {
        CohortTable.Participant(
            id: p.participant, values: columns.map { c in p.strings.first { $0.n == c.order }?.meanEntrySeconds })
    }
}
