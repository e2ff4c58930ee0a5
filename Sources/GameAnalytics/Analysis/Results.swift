#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - What the cohort analysis returns (docs/game-measures.md)

// MARK: Results

public struct NormEntry: Sendable, Hashable, Codable {
    public var measure: String
    public var value: Double?
    public var z: Double?
    public var percentile: Double?
    /// e.g. "No diagnosis, 18–29, female" or a fallback.
    public var reference: String
    public var referenceN: Int
    public var small: Bool
    public var fallback: Bool
    /// T-score 50 + 10·z (as CPT-3 and TOVA report).
    public var t: Double?
    /// 95 % Wilson interval of the percentile (in %), from the reference group's size.
    public var percentileLow: Double?
    public var percentileHigh: Double?
    /// The player's age lies outside the ages of the reference players: not normed.
    public var outsideNormedAges: Bool = false

    public init(measure: String, value: Double?, z: Double?, percentile: Double?, reference: String,
                referenceN: Int, small: Bool, fallback: Bool) {
        self.measure = measure; self.value = value; self.z = z; self.percentile = percentile
        self.reference = reference; self.referenceN = referenceN; self.small = small; self.fallback = fallback
        self.t = z.map { 50 + 10 * $0 }
        if let pct = percentile, referenceN > 0 {
            let w = Self.wilson(pct / 100, n: Double(referenceN))
            percentileLow = 100 * w.low; percentileHigh = 100 * w.high
        }
    }

    /// Wilson score interval (z = 1.96) of a proportion p from n observations.
    public static func wilson(_ p: Double, n: Double, z: Double = 1.959963984540054) -> (low: Double, high: Double) {
        let d = 1 + z * z / n
        let c = (p + z * z / (2 * n)) / d
        let h = z * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot() / d
        return (max(0, c - h), min(1, c + h))
    }
}

public struct Likelihood: Sendable, Hashable, Codable {
    public var probability: Double?
    public var low: Double?
    public var high: Double?
    /// Why there is no probability, or nil.
    public var unavailable: String?
    public var suggest: Bool
    /// Why the suggestion is (not) shown, in plain words.
    public var reason: String
    /// True when the probability is the out-of-fold estimate of a training player.
    public var outOfFold: Bool = false
}

public struct PlayerResult: Sendable, Hashable, Codable {
    public var id: String
    public var group: Group
    public var survey: Survey?
    public var ageBand: String?
    public var measures: PlayerMeasures
    public var norms: [NormEntry]
    public var likelihood: Likelihood
}

public struct GroupStats: Sendable, Hashable, Codable {
    public var n: Int
    public var mean: Double?
    public var sd: Double?
    public init(n: Int, mean: Double?, sd: Double?) { self.n = n; self.mean = mean; self.sd = sd }
}

public struct Comparison: Sendable, Hashable, Codable {
    public var measure: String
    public var groupA: Group
    public var groupB: Group
    public var a: GroupStats
    public var b: GroupStats
    /// Hedges' g of A − B with its approximate 95 % interval.
    public var g: Double?
    public var gLow: Double?
    public var gHigh: Double?
}

public struct CalibrationBin: Sendable, Hashable, Codable {
    public var low: Double
    public var high: Double
    public var n: Int
    public var meanPredicted: Double?
    public var observed: Double?
    public init(low: Double, high: Double, n: Int, meanPredicted: Double?, observed: Double?) {
        self.low = low; self.high = high; self.n = n; self.meanPredicted = meanPredicted; self.observed = observed
    }
}

public struct ModelReport: Sendable, Hashable, Codable {
    public var features: [String]
    public var C: Double
    public var standardizer: Standardizer
    public var model: LogisticModel
    public var nTrain: Int
    public var nPositive: Int
    public var folds: Int
    public var cvAUC: Double?
    public var cvAUCLow: Double?
    public var cvAUCHigh: Double?
    public var cvAUCSE: Double?
    public var trainAUC: Double?
    public var brier: Double?
    public var calibration: [CalibrationBin]
    public var roc: [ROC.Point]
    /// Out-of-fold probability per training player id.
    public var outOfFold: [String: Double]
    /// Calibration slope/intercept, classification at the threshold, optimism-corrected AUC.
    public var tripod: TripodReport
}

public struct GroupCount: Sendable, Hashable, Codable {
    public var group: Group
    public var ageBand, gender: String
    public var n: Int
}

public struct CohortAnalysis: Sendable, Hashable, Codable {
    public var options: AnalysisOptions
    public var players: [PlayerResult]
    public var groupCounts: [GroupCount]
    public var comparisons: [Comparison]
    public var model: ModelReport?
    /// Why there is no model, if there is none.
    public var modelUnavailable: String?
    /// Ages of the training players (no suggestion outside them).
    public var validatedAges: [Int]?
    public var warnings: [String]
}
