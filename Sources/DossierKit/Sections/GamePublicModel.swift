// Compiled only with the game domain.
#if DOMAIN_GAME
import Crypto
import Foundation
import GameAnalytics
import Privacy

// MARK: - The public site's model: differentially private cross-fitting (docs/game-privacy.md, "The public model")

/// The model behind the public ROC, calibration, AUC and Brier figures. Not the private
/// site's model: the training players are split into two halves by a keyed hash of their
/// id, each half fits a logistic regression on features clamped to fixed ranges
/// (``BoundedLogistic``), its coefficients are released with discrete Laplace noise, and
/// each player is scored by the *other* half's noisy model. One player then changes their
/// own half's coefficients by a bounded amount (``sensitivity``) and one cell of the score
/// histograms, and nothing else.
enum GamePublicModel {
    /// The features and their fixed ranges (L, U): z = 2·(clamp(v, L, U) − L)/(U − L) − 1.
    /// Constants, never refitted on a project's data (they were read off the simulated demo
    /// cohort, about its 1st to 99th percentiles, so no real player shaped them).
    static let features: [(measure: String, lower: Double, upper: Double)] = [
        ("hitRTSD", 40, 180), ("tau", 40, 340), ("omissionRate", 0, 0.25), ("dPrime", 2, 5), ("commissionRate", 0, 5),
    ]
    /// Λ of J(w) = Σ log(1 + exp(−y w·x)) + (Λ/2)‖w‖² (sum form, not scaled by n).
    static let lambda = 10.0
    /// The fit stops when ‖∇J‖₂ ≤ τ.
    static let tolerance = 1e-9
    /// Coefficients are released as integers k = round(w·G).
    static let gridSteps = 1000
    static let halves = ["A", "B"]
    /// The model card is shown only when both noisy class totals reach this: the public
    /// site's minimum group, and 10 players per feature (the private model's rule).
    static var minimumClass: Int { max(GamePublicRelease.minimumGroup, 10 * features.count) }

    /// d + 1: the intercept and one coefficient per feature.
    static var dimension: Int { features.count + 1 }

    /// L1 sensitivity of the rounded coefficients k (grid units) to adding or removing one
    /// player of the half: ⌈√(d+1)·(1 + 2τ)/Λ·G⌉ + (d+1).
    static var sensitivity: Int {
        Int((Double(dimension).squareRoot() * (1 + 2 * tolerance) / lambda * Double(gridSteps)).rounded(.up)) + dimension
    }

    struct Player: Sendable {
        var id: String
        var x: [Double]
        var positive: Bool
        var half: Int
    }

    /// The player's half: the lowest bit of the first byte of
    /// HMAC-SHA256(key, "dossier-model-half" ‖ utf8(id)), 0 = A, 1 = B. It depends on the
    /// key and the player's own id only, so no player moves when another comes or goes.
    static func half(_ id: String, key: Data) -> Int {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("dossier-model-half".utf8) + Data(id.utf8), using: SymmetricKey(data: key))
        return Int(Array(mac)[0] & 1)
    }

    /// The training players, by id: group control (negative) or adhd (positive), at least
    /// the analysis' minimum number of obstacles, and every feature defined. Each player's
    /// inclusion, row and label depend on their own data only.
    static func training(_ players: [PlayerResult], minimumEncounters: Int, key: Data) -> [Player] {
        players.filter { $0.group == .control || $0.group == .adhd }.sorted { $0.id < $1.id }.compactMap { p in
            guard p.measures.encounters >= minimumEncounters else { return nil }
            let v = features.compactMap { p.measures.value($0.measure) }
            guard v.count == features.count else { return nil }
            return Player(id: p.id, x: BoundedLogistic.row(v, ranges: features.map { ($0.lower, $0.upper) }),
                          positive: p.group == .adhd, half: half(p.id, key: key))
        }
    }

    /// The exact minimiser of J over one half's players (nil only if Newton's method did
    /// not reach τ, which a strongly convex smooth J does not allow in practice).
    static func exactFit(_ train: [Player], half h: Int) -> [Double]? {
        let mine = train.filter { $0.half == h }
        return BoundedLogistic.fit(rows: mine.map(\.x), labels: mine.map(\.positive), dimension: dimension,
                                   lambda: lambda, tolerance: tolerance)
    }

    /// k = round(w·G) per coefficient.
    static func rounded(_ w: [Double]) -> [Int] { w.map { Int(($0 * Double(gridSteps)).rounded()) } }

    /// Both halves' noisy coefficients k̃ = round(w·G) + discrete Laplace(sensitivity/ε),
    /// each half from its own stream (`rng(half)`); a half whose fit fails releases noise
    /// around 0.
    static func noisyModels(_ train: [Player], epsilon: Rational, rng: (String) -> KeyedRandom) -> [[Int]] {
        halves.indices.map { h in
            var r = rng(halves[h])
            let k = rounded(exactFit(train, half: h) ?? [Double](repeating: 0, count: dimension))
            return k.map { Mechanisms.laplace($0, sensitivity: sensitivity, epsilon: epsilon, &r) }
        }
    }

    /// The score histograms (``GamePublicRelease/scoreBins`` bins over [0, 1]) of the
    /// training players with and without a diagnosis, each player scored by the other
    /// half's model: with the models fixed, one player is in exactly one cell.
    static func histograms(_ train: [Player], models: [[Int]], bins: Int) -> (positive: [Int], negative: [Int]) {
        let w = models.map { $0.map { Double($0) / Double(gridSteps) } }
        var pos: [Double] = [], neg: [Double] = []
        for p in train {
            let s = BoundedLogistic.probability(w[1 - p.half], p.x)
            if p.positive { pos.append(s) } else { neg.append(s) }
        }
        return (Mechanisms.histogram(pos, lower: 0, upper: 1, bins: bins), Mechanisms.histogram(neg, lower: 0, upper: 1, bins: bins))
    }
}
#endif
