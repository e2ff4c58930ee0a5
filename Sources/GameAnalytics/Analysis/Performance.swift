#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - TRIPOD performance figures (docs/game-measures.md, "Model performance (TRIPOD)")

/// Classification at the suggestion threshold, from out-of-fold probabilities; each rate
/// with the number of players behind it (its denominator).
public struct ThresholdStats: Sendable, Hashable, Codable {
    public var threshold: Double
    public var tp: Int, fp: Int, tn: Int, fn: Int
    /// TP/(TP+FN), n = TP+FN
    public var sensitivity: Double?
    /// TN/(TN+FP), n = TN+FP
    public var specificity: Double?
    /// TP/(TP+FP), n = TP+FP — at this sample's prevalence only
    public var ppv: Double?
    /// TN/(TN+FN), n = TN+FN — at this sample's prevalence only
    public var npv: Double?
}

public struct TripodReport: Sendable, Hashable, Codable {
    /// Players behind every out-of-fold figure.
    public var n: Int
    /// Logistic recalibration y ~ a + b·logit(p̂) on the out-of-fold p̂ (Cox): slope b (1 = ideal).
    public var calibrationSlope: Double?
    /// …and its intercept a.
    public var calibrationIntercept: Double?
    /// Calibration-in-the-large: a in y ~ a + offset(logit p̂) (0 = ideal).
    public var calibrationInTheLarge: Double?
    public var atThreshold: ThresholdStats
    /// AUC of the full model on its own training data.
    public var apparentAUC: Double?
    /// Harrell's bootstrap optimism: mean over replicates of (AUC on the bootstrap sample −
    /// AUC on the original data) of a model refitted on the bootstrap sample.
    public var optimism: Double?
    public var optimismCorrectedAUC: Double?
    /// Replicates used (those with at least 2 players of each class).
    public var bootstrapReplicates: Int
}

public enum Performance {
    /// log(p/(1−p)) with p clamped to [1e−12, 1 − 1e−12].
    static func logit(_ p: Double) -> Double { let q = min(max(p, 1e-12), 1 - 1e-12); return log(q / (1 - q)) }

    /// Cox recalibration (slope, intercept) and calibration-in-the-large.
    public static func calibration(oof: [Double], labels: [Bool]) -> (slope: Double?, intercept: Double?, citl: Double?)
    {
        let lp = oof.map(logit)
        // Unpenalised (C = 10¹²) logistic fit on the single feature logit(p̂), unstandardised.
        let m = LogisticModel.fit(rows: lp.map { [$0] }, labels: labels, C: 1e12)
        // Newton for a in Σ (yᵢ − expit(a + lpᵢ)) = 0.
        var a = 0.0
        var ok = false
        for _ in 0..<100 {
            var g = 0.0, h = 0.0
            for (l, y) in zip(lp, labels) { let p = Special.expit(a + l); g += (y ? 1 : 0) - p; h += p * (1 - p) }
            guard h > 0 else { break }
            let step = g / h
            a += step
            if abs(step) < 1e-12 { ok = true; break }
        }
        return (m?.coefficients.first, m?.intercept, ok ? a : nil)
    }

    public static func atThreshold(_ t: Double, oof: [Double], labels: [Bool]) -> ThresholdStats {
        var tp = 0, fp = 0, tn = 0, fn = 0
        for (p, y) in zip(oof, labels) {
            switch (p >= t, y) {
            case (true, true): tp += 1
            case (true, false): fp += 1
            case (false, false): tn += 1
            case (false, true): fn += 1
            }
        }
        func r(_ a: Int, _ b: Int) -> Double? { a + b > 0 ? Double(a) / Double(a + b) : nil }
        return ThresholdStats(threshold: t, tp: tp, fp: fp, tn: tn, fn: fn, sensitivity: r(tp, fn),
                              specificity: r(tn, fp), ppv: r(tp, fp), npv: r(tn, fn))
    }

    /// Harrell's optimism bootstrap of the AUC. Replicate b draws n row indices with
    /// replacement (`Int(rng.next() % n)` from ``SeededRandom`` seeded with `seed`),
    /// standardises and fits on them, and scores both the bootstrap rows and the original rows.
    public static func optimism(rows: [[Double]], labels: [Bool], C: Double, replicates: Int, seed: UInt64)
        -> (apparent: Double?, optimism: Double?, corrected: Double?, used: Int) {
        let s = Standardizer(fitting: rows)
        guard let full = LogisticModel.fit(rows: rows.map(s.apply), labels: labels, C: C),
              let apparent = ROC.auc(scores: rows.map { full.probability(s.apply($0)) }, labels: labels) else {
            return (nil, nil, nil, 0)
        }
        var rng = SeededRandom(seed: seed)
        var total = 0.0, used = 0
        let n = rows.count
        for _ in 0..<replicates {
            let idx = (0..<n).map { _ in Int(rng.next() % UInt64(n)) }
            let y = idx.map { labels[$0] }
            let pos = y.filter { $0 }.count
            guard pos >= 2, n - pos >= 2 else { continue }
            let bs = Standardizer(fitting: idx.map { rows[$0] })
            guard let m = LogisticModel.fit(rows: idx.map { bs.apply(rows[$0]) }, labels: y, C: C),
                  let aBoot = ROC.auc(scores: idx.map { m.probability(bs.apply(rows[$0])) }, labels: y),
                let aOrig = ROC.auc(scores: rows.map { m.probability(bs.apply($0)) }, labels: labels)
            else { continue }
            total += aBoot - aOrig
            used += 1
        }
        guard used > 0 else { return (apparent, nil, nil, 0) }
        let o = total / Double(used)
        return (apparent, o, apparent - o, used)
    }
}
