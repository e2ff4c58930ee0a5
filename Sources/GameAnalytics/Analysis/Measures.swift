#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Per-player measures (docs/game-measures.md, "Trials" and "Measures")

/// How taps are matched to obstacles. Documented in docs/game-measures.md.
public enum Scoring {
    /// A response must come within this many ms of the obstacle appearing (and before the next one).
    public static let responseWindow = 1000
    /// A tap sooner than this after an obstacle appears is anticipatory (not a reaction).
    public static let anticipatory = 100
    /// Obstacles per vigilance block within a session.
    public static let blockSize = 10
    /// Length of one non-target opportunity for the false-alarm rate of d′.
    public static let slotMs = 1000
}

/// One obstacle's outcome.
public struct Trial: Sendable, Hashable, Codable {
    public var session: Int
    /// 0-based position within the session.
    public var position: Int
    public var interval: Int
    /// Reaction time of the hit in ms, nil for an omission.
    public var rt: Int?
    /// Length of the response window in ms (1000, or less when the next obstacle or the
    /// session end came sooner): an omission is a response slower than this.
    public var window: Int
    public var anticipatory: Bool
}

public struct SessionSummary: Sendable, Hashable, Codable {
    public var index: Int
    public var durationMs: Int
    public var obstacles: Int
    public var hits: Int
    public var omissions: Int
    public var commissions: Int
    public var hitRTMean: Double?
    public var hitRTSD: Double?
    public var score: Int
    /// Why the session is invalid (docs/game-measures.md, "Session validity"), or nil.
    public var invalid: String? = nil
}

/// Hit RT and errors of one vigilance block (obstacles 10k…10k+9 of every session, pooled).
public struct BlockSummary: Sendable, Hashable, Codable {
    public var block: Int
    public var obstacles: Int
    public var hits: Int
    public var omissions: Int
    public var hitRTMean: Double?
    public var hitRTSD: Double?
}

/// Everything computed for one player from their own telemetry (no cohort needed).
public struct PlayerMeasures: Sendable, Hashable, Codable {
    // Seed 4.4 / 4.8 metrics
    public var sessions: Int
    public var playedMs: Int
    public var meanSessionMs: Double?
    public var encounters: Int
    public var jumps: Int
    public var collisions: Int
    public var volumeToggles: Int
    public var errorLogs: Int
    public var bestScore: Int?
    public var lastScore: Int?
    public var meanScore: Double?
    // CPT-like
    public var hits: Int
    public var omissions: Int
    public var commissions: Int
    public var anticipatory: Int
    public var omissionRate: Double?
    /// Commissions per minute of play.
    public var commissionRate: Double?
    /// Anticipatory taps per obstacle.
    public var anticipatoryRate: Double?
    public var hitRTMean: Double?
    public var hitRTSD: Double?
    public var hitRTCV: Double?
    /// The censored ex-Gaussian fit: hits contribute their density, omissions the
    /// probability of a response slower than their window (docs/game-measures.md).
    public var exGaussian: ExGaussianFit?
    /// The same fit ignoring omissions (biased low in τ; kept to report the difference).
    public var exGaussianUncensored: ExGaussianFit?
    /// ms per block of ``Scoring/blockSize`` obstacles (vigilance).
    public var blockSlope: Double?
    /// ms per second of inter-obstacle interval.
    public var isiSlope: Double?
    public var hitRate: Double?
    public var falseAlarmRate: Double?
    public var dPrime: Double?
    public var perSession: [SessionSummary]
    /// Hit reaction times in ms (for the histogram), in trial order.
    public var hitRTs: [Double]
    /// Response style β = exp((z(F)² − z(H)²)/2) with the same corrected rates as d′.
    public var beta: Double?
    /// Standard error of the hit RT mean, SD/√hits.
    public var hitRTSE: Double?
    /// Block-by-block table.
    public var blocks: [BlockSummary] = []
    /// Practice effect: OLS slope of the session hit RT mean on the session number (ms/session).
    public var practiceSlope: Double?
    /// Sessions marked invalid.
    public var invalidSessions: Int = 0

    /// A named measure's value (names as in ``MeasureCatalog``).
    public func value(_ name: String) -> Double? {
        switch name {
        case "hitRTMean": return hitRTMean
        case "hitRTSD": return hitRTSD
        case "hitRTCV": return hitRTCV
        case "omissionRate": return omissionRate
        case "commissionRate": return commissionRate
        case "anticipatoryRate": return anticipatoryRate
        case "mu": return exGaussian?.params.mu
        case "sigma": return exGaussian?.params.sigma
        case "tau": return exGaussian?.params.tau
        case "blockSlope": return blockSlope
        case "isiSlope": return isiSlope
        case "dPrime": return dPrime
        case "meanSessionMinutes": return meanSessionMs.map { $0 / 60000 }
        case "meanScore": return meanScore
        default: return nil
        }
    }
}

/// Names, labels and units of the measures that get norms.
public enum MeasureCatalog {
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var label: String
        public var unit: String
        /// true when higher values are the direction the literature links to ADHD.
        public var higherIsAtypical: Bool
    }

    public static let normed: [Entry] = [
        Entry(name: "hitRTMean", label: "Hit RT mean", unit: "ms", higherIsAtypical: true),
        Entry(name: "hitRTSD", label: "Hit RT SD (variability)", unit: "ms", higherIsAtypical: true),
        Entry(name: "hitRTCV", label: "Hit RT coefficient of variation", unit: "", higherIsAtypical: true),
        Entry(name: "mu", label: "Ex-Gaussian μ", unit: "ms", higherIsAtypical: true),
        Entry(name: "sigma", label: "Ex-Gaussian σ", unit: "ms", higherIsAtypical: true),
        Entry(name: "tau", label: "Ex-Gaussian τ", unit: "ms", higherIsAtypical: true),
        Entry(name: "omissionRate", label: "Omission rate", unit: "", higherIsAtypical: true),
        Entry(name: "commissionRate", label: "Commissions per minute", unit: "/min", higherIsAtypical: true),
        Entry(name: "anticipatoryRate", label: "Anticipatory responses per obstacle", unit: "", higherIsAtypical: true),
        Entry(name: "dPrime", label: "Detectability d′", unit: "", higherIsAtypical: false),
        Entry(
            name: "blockSlope", label: "Hit RT change per block (vigilance)", unit: "ms/block", higherIsAtypical: true),
        Entry(name: "isiSlope", label: "Hit RT change per second of interval", unit: "ms/s", higherIsAtypical: true),
    ]

    /// The model's features, in order.
    public static let features = ["hitRTMean", "hitRTSD", "tau", "omissionRate", "commissionRate",
                                  "anticipatoryRate", "dPrime", "blockSlope"]

    public static func label(_ name: String) -> String { normed.first { $0.name == name }?.label ?? name }
}

public enum Measures {
    /// Matches taps to obstacles. For obstacle i appearing at aᵢ the window is
    /// [aᵢ, min(aᵢ + 1000, aᵢ₊₁)). Taps in the window earlier than 100 ms are anticipatory;
    /// the first tap at ≥ 100 ms is the hit (RT = tap − aᵢ); no such tap is an omission.
    /// Every other tap (outside every window, or after the hit) is a commission.
    public static func trials(_ s: Session) -> (trials: [Trial], commissions: Int, coveredMs: Int) {
        var trials: [Trial] = []
        var used = Set<Int>()           // indices of taps that were a hit or anticipatory
        var covered = 0
        var j = 0                       // first tap not before the current window
        let taps = s.taps
        for (i, o) in s.obstacles.enumerated() {
            let next = i + 1 < s.obstacles.count ? s.obstacles[i + 1].t : Int.max
            let (windowEnd, o1) = o.t.addingReportingOverflow(Scoring.responseWindow)
            let end = min(o1 ? Int.max : windowEnd, next, s.duration == Int.max ? Int.max : s.duration + 1)
            covered += max(0, min(end, s.duration) - o.t)
            while j < taps.count && taps[j] < o.t { j += 1 }
            var k = j
            var rt: Int?
            var antic = false
            while k < taps.count && taps[k] < end {
                let d = taps[k] - o.t
                if d < Scoring.anticipatory {
                    antic = true; used.insert(k)
                } else { rt = d; used.insert(k); break }
                k += 1
            }
            // The window's length up to its (exclusive) end: cut by the session end it is
            // duration + 1 − a, as a tap at `duration` still counts (docs/game-measures.md).
            let window = max(0, end - o.t)
            trials.append(
                Trial(session: s.index, position: i, interval: o.interval, rt: rt, window: window, anticipatory: antic))
        }
        return (trials, taps.count - used.count, covered)
    }

    /// A session is invalid when it has at least 10 obstacles and the player reacted to
    /// fewer than a quarter of them ("too few responses"), or tapped more than 120 times a
    /// minute ("constant responding"). Invalid sessions are flagged and counted, not dropped.
    public static func invalidReason(_ s: Session, hits: Int) -> String? {
        guard s.obstacles.count >= 10 else { return nil }
        if hits * 4 < s.obstacles.count { return "too few responses (\(hits) of \(s.obstacles.count) obstacles)" }
        if s.duration > 0 && Double(s.taps.count) / (Double(s.duration) / 60000) > 120 {
            return "constant responding (more than 120 taps a minute)"
        }
        return nil
    }

    /// Hits and RTs per block of ``Scoring/blockSize`` obstacles, pooled over sessions.
    public static func blockTable(_ trials: [Trial]) -> [BlockSummary] {
        let byBlock = Dictionary(grouping: trials) { $0.position / Scoring.blockSize }
        return byBlock.keys.sorted().map { b in
            let t = byBlock[b]!
            let rts = t.compactMap { $0.rt.map(Double.init) }
            return BlockSummary(block: b + 1, obstacles: t.count, hits: rts.count, omissions: t.count - rts.count,
                                hitRTMean: Describe.mean(rts), hitRTSD: Describe.sd(rts))
        }
    }

    /// Censoring points of the omissions: their window lengths, for windows long enough to
    /// hold a reaction (≥ ``Scoring/anticipatory`` ms); shorter ones carry no information.
    public static func censorPoints(_ trials: [Trial]) -> [Double] {
        trials.filter { $0.rt == nil && $0.window >= Scoring.anticipatory }.map { Double($0.window) }
    }

    /// All measures for one player (pooled over sessions).
    public static func compute(_ p: Player) -> PlayerMeasures {
        var all: [Trial] = []
        var commissions = 0
        var nonTargetSlots = 0
        var perSession: [SessionSummary] = []
        for s in p.sessions {
            let r = trials(s)
            all += r.trials
            commissions += r.commissions
            nonTargetSlots += max(0, s.duration - r.coveredMs) / Scoring.slotMs
            let rts = r.trials.compactMap { $0.rt.map(Double.init) }
            perSession.append(SessionSummary(index: s.index, durationMs: s.duration, obstacles: s.obstacles.count,
                                             hits: rts.count, omissions: s.obstacles.count - rts.count,
                                             commissions: r.commissions, hitRTMean: Describe.mean(rts),
                                             hitRTSD: Describe.sd(rts), score: s.score,
                                             invalid: invalidReason(s, hits: rts.count)))
        }
        let rts = all.compactMap { $0.rt.map(Double.init) }
        let n = all.count
        let hits = rts.count
        // Wide arithmetic: sums in Double never trap (validated input keeps them exact, see TelemetryLimits).
        let playedD = p.sessions.reduce(0.0) { $0 + Double($1.duration) }
        let played = playedD < 9.0e18 ? Int(playedD) : Int.max
        let mean = Describe.mean(rts), sd = Describe.sd(rts)
        // Vigilance: OLS slope of hit RT on the block index within the session.
        let hitTrials = all.filter { $0.rt != nil }
        let blockSlope = Describe.slope(x: hitTrials.map { Double($0.position / Scoring.blockSize) },
                                        y: hitTrials.map { Double($0.rt!) })
        let isiSlope = Describe.slope(
            x: hitTrials.map { Double($0.interval) / 1000 }, y: hitTrials.map { Double($0.rt!) })
        // d′ with the log-linear correction (Hautus 1995).
        var hr: Double?, far: Double?, dp: Double?, beta: Double?
        if n > 0 {
            let slots = max(1, nonTargetSlots)
            let fa = min(commissions, slots)
            let h = (Double(hits) + 0.5) / (Double(n) + 1)
            let f = (Double(fa) + 0.5) / (Double(slots) + 1)
            hr = Double(hits) / Double(n)
            far = Double(fa) / Double(slots)
            let zh = Special.normalQuantile(h), zf = Special.normalQuantile(f)
            dp = zh - zf
            beta = exp((zf * zf - zh * zh) / 2)
        }
        let scores = p.sessions.map(\.score)
        return PlayerMeasures(
            sessions: p.sessions.count, playedMs: played,
            meanSessionMs: p.sessions.isEmpty ? nil : playedD / Double(p.sessions.count),
            encounters: n, jumps: p.sessions.reduce(0) { $0 + $1.jumps.count },
            collisions: p.sessions.reduce(0) { $0 + $1.collisions.count },
            volumeToggles: p.sessions.reduce(0) { $0 + $1.volume.count },
            errorLogs: p.sessions.reduce(0) { $0 + $1.errors.count },
            bestScore: scores.max(), lastScore: scores.last,
            meanScore: scores.isEmpty ? nil : scores.reduce(0.0) { $0 + Double($1) } / Double(scores.count),
            hits: hits, omissions: n - hits, commissions: commissions,
            anticipatory: all.filter(\.anticipatory).count,
            omissionRate: n > 0 ? Double(n - hits) / Double(n) : nil,
            commissionRate: played > 0 ? Double(commissions) / (playedD / 60000) : nil,
            anticipatoryRate: n > 0 ? Double(all.filter(\.anticipatory).count) / Double(n) : nil,
            hitRTMean: mean, hitRTSD: sd, hitRTCV: (mean != nil && sd != nil && mean! > 0) ? sd! / mean! : nil,
            exGaussian: ExGaussian.fit(rts, censoredAt: censorPoints(all)), exGaussianUncensored: ExGaussian.fit(rts),
            blockSlope: blockSlope, isiSlope: isiSlope,
            hitRate: hr, falseAlarmRate: far, dPrime: dp, perSession: perSession, hitRTs: rts,
            beta: beta, hitRTSE: sd.map { $0 / Double(hits).squareRoot() },
            blocks: blockTable(all),
            practiceSlope: Describe.slope(
                x: perSession.compactMap { s in s.hitRTMean.map { _ in Double(s.index) } },
                y: perSession.compactMap(\.hitRTMean)),
            invalidSessions: perSession.filter { $0.invalid != nil }.count)
    }
}
