#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Cohort-level summaries shown on the aggregate site (docs/game-measures.md)

/// Aggregate figures over every player: how far censoring moves τ, session validity,
/// practice effects and the block-by-block table.
public struct CohortSummary: Sendable, Hashable, Codable {
    /// Players with both ex-Gaussian fits, and the means of their τ with and without censoring.
    public var tauPlayers: Int
    public var tauCensoredMean: Double?
    public var tauUncensoredMean: Double?
    /// Mean of (censored τ − complete-data τ) over those players.
    public var tauShiftMean: Double?
    public var sessions: Int
    public var invalidSessions: Int
    /// Players with a practice slope (≥ 2 sessions with hits) and its mean (ms/session).
    public var practicePlayers: Int
    public var practiceSlopeMean: Double?
    public var blocks: [Block]

    /// Block k: players with hits in it, the mean of their block hit RT means, total obstacles and omissions.
    public struct Block: Sendable, Hashable, Codable {
        public var block: Int
        public var players: Int
        public var hitRTMean: Double?
        public var obstacles: Int
        public var omissions: Int
    }

    public static func of(_ players: [PlayerResult]) -> CohortSummary {
        let both = players.compactMap { p -> (Double, Double)? in
            guard let c = p.measures.exGaussian?.params.tau, let u = p.measures.exGaussianUncensored?.params.tau else {
                return nil
            }
            return (c, u)
        }
        let practice = players.compactMap(\.measures.practiceSlope)
        let maxBlock = players.flatMap { $0.measures.blocks.map(\.block) }.max() ?? 0
        let blocks = maxBlock == 0 ? [] : (1...maxBlock).map { k -> Block in
            let b = players.compactMap { $0.measures.blocks.first { $0.block == k } }
            let means = b.compactMap(\.hitRTMean)
            return Block(block: k, players: means.count, hitRTMean: Describe.mean(means),
                         obstacles: b.reduce(0) { $0 + $1.obstacles }, omissions: b.reduce(0) { $0 + $1.omissions })
        }
        return CohortSummary(
            tauPlayers: both.count, tauCensoredMean: Describe.mean(both.map(\.0)),
            tauUncensoredMean: Describe.mean(both.map(\.1)),
            tauShiftMean: Describe.mean(both.map { $0.0 - $0.1 }),
            sessions: players.reduce(0) { $0 + $1.measures.sessions },
            invalidSessions: players.reduce(0) { $0 + $1.measures.invalidSessions },
            practicePlayers: practice.count, practiceSlopeMean: Describe.mean(practice), blocks: blocks)
    }
}
