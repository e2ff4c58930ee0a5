#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Cohort simulator (assumptions in docs/game-measures.md, "Simulator")

/// Generates a realistic cohort from documented, literature-based assumptions.
/// Deterministic: the same options give byte-identical telemetry.
public struct Simulator: Sendable {
    public var players = 220
    public var seed: UInt64 = 1
    public var obstaclesPerSession = 80
    /// Sessions per player: uniform in this range.
    public var sessions: ClosedRange<Int> = 2...4

    public init(players: Int = 220, seed: UInt64 = 1) { self.players = players; self.seed = seed }

    /// The assumed true parameters of one simulated player.
    public struct Profile: Sendable, Hashable {
        public var mu: Double, sigma: Double, tau: Double
        public var omission: Double, commissionsPerMinute: Double, anticipatory: Double
        /// Multiplicative growth of τ per block of 10 obstacles (vigilance decrement).
        public var tauGrowthPerBlock: Double
    }

    static let intervals = [1000, 2000, 4000]
    static let kinds = ["crate", "bird", "spike"]
    static let ageBands: [(ClosedRange<Int>, Double)] = [
        (6...12, 0.2), (13...17, 0.2), (18...29, 0.3), (30...44, 0.2), (45...70, 0.1)
    ]

    public func run() -> Cohort {
        var rng = SeededRandom(seed: seed)
        var out: [Player] = []
        var used = Set<String>()
        for _ in 0..<players {
            var id: String
            repeat { id = cFormat("%016llx", rng.next()).prefix(12).description } while used.contains(id)
            used.insert(id)
            let gender = ["female", "male", "other"][rng.weighted([0.47, 0.47, 0.06])]
            let bandRange = Self.ageBands[rng.weighted(Self.ageBands.map(\.1))].0
            let age = bandRange.lowerBound + rng.below(bandRange.count)
            let diagnosed = rng.uniform() < 0.35
            let medicated = diagnosed && rng.uniform() < 0.45
            let incomplete = rng.uniform() < 0.03
            let survey = incomplete
                ? Survey(complete: false, diagnosed: nil, medicated: nil, age: age, gender: nil)
                : Survey(
                    complete: true, diagnosed: diagnosed, medicated: diagnosed ? medicated : nil, age: age,
                    gender: gender)
            // 5 % of players without a diagnosis play like unmedicated ADHD (undiagnosed).
            let undiagnosed = !diagnosed && rng.uniform() < 0.05
            let profile = Self.profile(age: age, gender: gender, diagnosed: diagnosed || undiagnosed,
                                       medicated: medicated, rng: &rng)
            let n = sessions.lowerBound + rng.below(sessions.count)
            var clock = 1_000_000 + rng.below(50_000_000)
            var ss: [Session] = []
            for k in 1...n {
                let s = simulateSession(index: k, start: clock, profile: profile, rng: &rng)
                ss.append(s)
                clock = s.end + 60_000 + rng.below(1_800_000)
            }
            out.append(Player(id: id, survey: survey, sessions: ss))
        }
        return Cohort(players: out)
    }

    /// Draws a player's true parameters (see docs for the literature behind each number).
    static func profile(age: Int, gender: String, diagnosed: Bool, medicated: Bool, rng: inout SeededRandom) -> Profile
    {
        let ageShift: Double = age <= 12 ? 80 : age <= 17 ? 30 : age <= 29 ? 0 : age <= 44 ? 15 : 45
        let child = age <= 12 ? 20.0 : 0
        var mu = 380 + ageShift + 35 * rng.normal()
        var sigma = max(15, 45 + 8 * rng.normal())
        var tau = max(20, 80 + child + 25 * rng.normal())
        var om = 0.03, com = 0.6, ant = 0.01, vig = 0.02
        if diagnosed && !medicated {
            tau *= max(1, 1.3 + 0.15 * rng.normal()); sigma *= 1.1
            om = 0.045; com = 0.9; ant = 0.015; vig = 0.04
        } else if diagnosed {
            tau *= max(1, 1.15 + 0.15 * rng.normal()); sigma *= 1.05
            om = 0.0375; com = 0.75; ant = 0.0125; vig = 0.03
        }
        if gender == "male" { com *= 1.2 }
        mu = max(200, mu)
        return Profile(mu: mu, sigma: sigma, tau: tau,
                       omission: min(0.5, om * exp(0.7 * rng.normal())),
                       commissionsPerMinute: com * exp(0.7 * rng.normal()),
                       anticipatory: min(0.2, ant * exp(0.7 * rng.normal())),
                       tauGrowthPerBlock: vig)
    }

    func simulateSession(index: Int, start: Int, profile p: Profile, rng: inout SeededRandom) -> Session {
        var obstacles: [Obstacle] = []
        var t = 0
        for _ in 0..<obstaclesPerSession {
            let iv = Self.intervals[rng.below(Self.intervals.count)]
            t += iv
            obstacles.append(Obstacle(t: t, interval: iv, kind: Self.kinds[rng.below(Self.kinds.count)]))
        }
        let duration = t + 2000
        var taps: [Int] = []
        for (i, o) in obstacles.enumerated() {
            let tau = p.tau * pow(1 + p.tauGrowthPerBlock, Double(i / 10))
            if rng.uniform() < p.anticipatory {
                taps.append(o.t + rng.below(100))
                if rng.uniform() < 0.5 { continue }
            }
            if rng.uniform() < p.omission { continue }
            let rt = p.mu + p.sigma * rng.normal() + rng.exponential(mean: tau)
            taps.append(o.t + max(0, Int(rt.rounded())))
        }
        var c = rng.exponential(mean: 60_000 / p.commissionsPerMinute)
        while c < Double(duration) { taps.append(Int(c)); c += rng.exponential(mean: 60_000 / p.commissionsPerMinute) }
        taps = taps.filter { $0 <= duration }.sorted()
        // A tap starts a jump unless one is in progress (a jump lasts 500 ms).
        var jumps: [Int] = []
        for tap in taps where jumps.last.map({ tap - $0 >= 500 }) ?? true { jumps.append(tap) }
        // An obstacle is cleared by a jump starting within 1000 ms of it (and before the next).
        var collisions: [Int] = []
        for (i, o) in obstacles.enumerated() {
            let end = min(o.t + 1000, i + 1 < obstacles.count ? obstacles[i + 1].t : Int.max)
            if !jumps.contains(where: { $0 >= o.t && $0 < end }) { collisions.append(o.t + 600) }
        }
        var volume: [VolumeToggle] = []
        if rng.uniform() < 0.2 { volume.append(VolumeToggle(t: rng.below(duration), on: false)) }
        var errors: [ErrorLog] = []
        if rng.uniform() < 0.02 {
            errors.append(ErrorLog(t: rng.below(duration), message: "audio session interrupted"))
        }
        let score = 10 * (obstacles.count - collisions.count) + duration / 1000
        return Session(index: index, start: start, end: start + duration, score: score, obstacles: obstacles,
                       taps: taps, jumps: jumps, collisions: collisions, volume: volume, errors: errors)
    }
}
