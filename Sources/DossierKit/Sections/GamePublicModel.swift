// Compiled only with the game domain.
#if DOMAIN_GAME
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import GameAnalytics
import Privacy

// MARK: - The public site's model: one differentially private fit (docs/game-privacy.md, "The public model")

/// The model behind the public ROC, calibration, AUC and Brier figures. Not the private
/// site's model: one logistic regression on every training player, on features clamped to
/// fixed ranges (``BoundedLogistic``), its coefficients released with discrete Laplace
/// noise, and every training player scored by that one noisy model. One player changes
/// the coefficients by a bounded amount (``sensitivity``) and, with the released model
/// fixed, one cell of the score histograms, and nothing else.
enum GamePublicModel {
    /// The features and their fixed ranges (L, U): z = 2·(clamp(v, L, U) − L)/(U − L) − 1.
    /// Constants, never refitted on a project's data (they were read off the simulated demo
    /// cohort, about its 1st to 99th percentiles, so no real player shaped them).
    static let features: [(measure: String, lower: Double, upper: Double)] = [
        ("hitRTSD", 40, 180), ("tau", 40, 340), ("omissionRate", 0, 0.25), ("dPrime", 2, 5), ("commissionRate", 0, 5),
    ]
    /// Λ of J(w) = Σ log(1 + exp(−y w·x)) + (Λ/2)‖w‖² (sum form, not scaled by n).
    static let lambda = 40.0
    /// The fit stops when ‖∇J‖₂ ≤ τ.
    static let tolerance = 1e-9
    /// Coefficients are released as integers k = round(w·G).
    static let gridSteps = 1000
    /// The model card is shown only when both noisy class totals reach this: the public
    /// site's minimum group, and 10 players per feature (the private model's rule).
    static var minimumClass: Int { max(GamePublicRelease.minimumGroup, 10 * features.count) }

    /// d + 1: the intercept and one coefficient per feature.
    static var dimension: Int { features.count + 1 }

    /// L1 sensitivity of the rounded coefficients k (grid units) to adding or removing one
    /// training player: ⌈√(d+1)·(1 + 2τ)/Λ·G⌉ + (d+1).
    static var sensitivity: Int {
        Int((Double(dimension).squareRoot() * (1 + 2 * tolerance) / lambda * Double(gridSteps)).rounded(.up))
            + dimension
    }

    struct Player: Sendable {
        var id: String
        var x: [Double]
        var positive: Bool
    }

    /// The training players, by id: group control (negative) or adhd (positive), at least
    /// the analysis' minimum number of obstacles, and every feature defined. Each player's
    /// inclusion, row and label depend on their own data only.
    static func training(_ players: [PlayerResult], minimumEncounters: Int) -> [Player] {
        players.filter { $0.group == .control || $0.group == .adhd }.sorted { $0.id < $1.id }.compactMap { p in
            guard p.measures.encounters >= minimumEncounters else { return nil }
            let v = features.compactMap { p.measures.value($0.measure) }
            guard v.count == features.count else { return nil }
            return Player(id: p.id, x: BoundedLogistic.row(v, ranges: features.map { ($0.lower, $0.upper) }),
                          positive: p.group == .adhd)
        }
    }

    /// The exact minimiser of J over the training players (nil only if Newton's method did
    /// not reach τ, which a strongly convex smooth J does not allow in practice).
    static func exactFit(_ train: [Player]) -> [Double]? {
        BoundedLogistic.fit(rows: train.map(\.x), labels: train.map(\.positive), dimension: dimension,
                            lambda: lambda, tolerance: tolerance)
    }

    /// k = round(w·G) per coefficient.
    static func rounded(_ w: [Double]) -> [Int] { w.map { Int(($0 * Double(gridSteps)).rounded()) } }

    /// The noisy coefficients k̃ = round(w·G) + discrete Laplace(sensitivity/ε), one draw per
    /// coefficient from `rng`; a fit that fails releases noise around 0.
    static func noisyModel(_ train: [Player], epsilon: Rational, rng: inout KeyedRandom) -> [Int] {
        let k = rounded(exactFit(train) ?? [Double](repeating: 0, count: dimension))
        return k.map { Mechanisms.laplace($0, sensitivity: sensitivity, epsilon: epsilon, &rng) }
    }

    /// The released model as numbers: w̃ = k̃/G.
    static func weights(_ model: [Int]) -> [Double] { model.map { Double($0) / Double(gridSteps) } }

    /// Each training player's linear score t = w̃·x under the released model (in-sample),
    /// by class: one player's score depends on their own row and the public model only.
    static func scores(_ train: [Player], model: [Int]) -> (positive: [Double], negative: [Double]) {
        let w = weights(model)
        var pos: [Double] = [], neg: [Double] = []
        for p in train {
            let t = BoundedLogistic.score(w, p.x)
            if p.positive { pos.append(t) } else { neg.append(t) }
        }
        return (pos, neg)
    }

    /// The histograms' range of t, from the released model alone: c ± 2h with
    /// c = w̃₀/√(d+1) (the score at the middle of every feature range) and
    /// h = ‖(w̃₁…w̃_d)‖₂/√(d+1) (h = 1 when every slope is 0).
    static func scoreRange(_ model: [Int]) -> (lower: Double, upper: Double) {
        let w = weights(model), s = Double(dimension).squareRoot()
        let c = w[0] / s
        let slopes = w.dropFirst().reduce(0) { $0 + $1 * $1 }.squareRoot() / s
        let h = slopes > 0 ? slopes : 1
        return (c - 2 * h, c + 2 * h)
    }

    /// The score histograms (`bins` equal bins of t over ``scoreRange(_:)``, a score
    /// outside it in the nearest end bin) of the training players with and without a
    /// diagnosis: with the model fixed, one player is in exactly one cell.
    static func histograms(_ train: [Player], model: [Int], bins: Int) -> (positive: [Int], negative: [Int]) {
        histograms(scores(train, model: model), model: model, bins: bins)
    }

    /// The same from scores already computed by ``scores(_:model:)``.
    static func histograms(
        _ t: (positive: [Double], negative: [Double]), model: [Int], bins: Int
    ) -> (positive: [Int], negative: [Int]) {
        let r = scoreRange(model)
        return (
            Mechanisms.histogram(t.positive, lower: r.lower, upper: r.upper, bins: bins),
            Mechanisms.histogram(t.negative, lower: r.lower, upper: r.upper, bins: bins)
        )
    }
}
#endif
