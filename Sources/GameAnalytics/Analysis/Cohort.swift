#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Groups, norms, comparisons, model (docs/game-measures.md)

public enum Group: String, Sendable, Hashable, Codable, CaseIterable {
    /// Complete survey, no diagnosis: the reference group for norms.
    case control
    /// Diagnosed, not medicated.
    case adhd
    /// Diagnosed and medicated: always analysed as their own group.
    case medicated = "adhd-medicated"
    /// Incomplete or missing survey.
    case unknown

    public var label: String {
        switch self {
        case .control: return "No diagnosis"
        case .adhd: return "ADHD, unmedicated"
        case .medicated: return "ADHD, medicated"
        case .unknown: return "Survey incomplete"
        }
    }

    public static func of(_ s: Survey?) -> Group {
        guard let s, s.complete, let d = s.diagnosed else { return .unknown }
        if !d { return .control }
        return s.medicated == true ? .medicated : .adhd
    }
}

/// Short number text for sentences ("10", "2.5").
enum GameNumber {
    static func short(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : cFormat("%.1f", x)
    }
}

public enum AgeBand {
    public static let bands: [(label: String, range: ClosedRange<Int>)] = [
        ("3–12", 3...12), ("13–17", 13...17), ("18–29", 18...29), ("30–44", 30...44), ("45+", 45...120),
    ]
    public static func of(_ age: Int) -> String { bands.first { $0.range.contains(age) }?.label ?? "?" }
}

/// Options of the analysis (from `dossier.yml`); defaults are documented.
public struct AnalysisOptions: Sendable, Hashable, Codable {
    /// Inverse penalty strength, as scikit-learn's C.
    public var C: Double = 1.0
    public var folds: Int = 5
    /// Seed of the stratified fold assignment.
    public var foldSeed: UInt64 = 2014
    /// Minimum reference-group size before falling back to a wider group.
    public var minimumNormGroup: Int = 10
    /// Reference groups smaller than this are flagged "small".
    public var smallNormGroup: Int = 30
    /// Minimum obstacles before a player enters the model or gets a probability.
    public var minimumEncounters: Int = 30
    /// A suggestion needs at least this many obstacles and sessions…
    public var suggestionEncounters: Int = 100
    public var suggestionSessions: Int = 2
    /// …a probability at least this high and a 95 % interval whose lower end is at least `suggestionLowerBound`.
    public var suggestionProbability: Double = 0.7
    public var suggestionLowerBound: Double = 0.5
    public var calibrationBins: Int = 10
    /// The model is refused when the smaller class has fewer than this many players per
    /// predictor (events per variable, Peduzzi et al. 1996; Riley et al. 2020)…
    public var minimumEventsPerPredictor: Double = 10
    /// …or fewer than this many players.
    public var minimumClass: Int = 20
    /// Bootstrap replicates of Harrell's optimism correction, and their seed.
    public var bootstrapReplicates: Int = 200
    public var bootstrapSeed: UInt64 = 1996
    public init() {}
}

// MARK: - Analysis

public enum CohortAnalyzer {

    public static func analyze(_ cohort: Cohort, options o: AnalysisOptions = AnalysisOptions()) -> CohortAnalysis {
        let measures = cohort.players.map { Measures.compute($0) }
        let groups = cohort.players.map { Group.of($0.survey) }
        var warnings: [String] = []

        // Norms
        func band(_ i: Int) -> String? { cohort.players[i].survey?.age.map(AgeBand.of) }
        let controls = cohort.players.indices.filter { groups[$0] == .control }
        let controlAges = controls.compactMap { cohort.players[$0].survey?.age }
        var norms: [[NormEntry]] = []
        for i in cohort.players.indices {
            guard let b = band(i), let g = cohort.players[i].survey?.gender else { norms.append([]); continue }
            // Ages outside the reference players' ages are flagged, never silently normed.
            // Normed ages: from the start of the youngest reference player's age band to the end of the oldest's.
            if let age = cohort.players[i].survey?.age, let yo = controlAges.min(), let ol = controlAges.max(),
               let lo = AgeBand.bands.first(where: { $0.range.contains(yo) })?.range.lowerBound,
                let hi = AgeBand.bands.first(where: { $0.range.contains(ol) })?.range.upperBound,
                !(lo...hi).contains(age)
            {
                norms.append(
                    MeasureCatalog.normed.map { e in
                        var n = NormEntry(
                            measure: e.name, value: measures[i].value(e.name), z: nil, percentile: nil,
                            reference: "not normed: age \(age) is outside the normed ages \(lo)–\(hi)",
                            referenceN: 0, small: false, fallback: false)
                        n.outsideNormedAges = true
                        return n
                    })
                continue
            }
            norms.append(MeasureCatalog.normed.map { e in
                let x = measures[i].value(e.name)
                let tiers: [(String, [Int])] = [
                        (
                            "No diagnosis, \(b), \(g)",
                            controls.filter { band($0) == b && cohort.players[$0].survey?.gender == g }
                        ),
                    ("No diagnosis, \(b), any gender", controls.filter { band($0) == b }),
                    ("No diagnosis, all ages and genders", controls),
                ]
                var chosen = tiers.last!, fallback = false
                for (k, t) in tiers.enumerated() {
                    let n = t.1.filter { measures[$0].value(e.name) != nil }.count
                    if n >= o.minimumNormGroup || k == tiers.count - 1 { chosen = t; fallback = k > 0; break }
                }
                let ref = chosen.1.compactMap { measures[$0].value(e.name) }
                var z: Double?, pct: Double?
                if let x, ref.count >= 2, let m = Describe.mean(ref), let sd = Describe.sd(ref), sd > 0 {
                    z = (x - m) / sd
                    let below = ref.filter { $0 < x }.count, equal = ref.filter { $0 == x }.count
                    pct = 100 * (Double(below) + 0.5 * Double(equal)) / Double(ref.count)
                }
                return NormEntry(measure: e.name, value: x, z: z, percentile: pct, reference: chosen.0,
                                 referenceN: ref.count, small: ref.count < o.smallNormGroup, fallback: fallback)
            })
        }

        // Group counts by age band and gender
        var counts: [GroupCount] = []
        for g in Group.allCases {
            var by: [String: Int] = [:]
            for i in cohort.players.indices where groups[i] == g {
                let key = (band(i) ?? "unknown") + "|" + (cohort.players[i].survey?.gender ?? "unknown")
                by[key, default: 0] += 1
            }
            for (k, n) in by.sorted(by: { $0.key < $1.key }) {
                let parts = k.split(separator: "|").map(String.init)
                counts.append(GroupCount(group: g, ageBand: parts[0], gender: parts[1], n: n))
            }
        }

        // Group comparisons (Hedges' g)
        var comparisons: [Comparison] = []
        for (a, b) in [(Group.adhd, Group.control), (.medicated, .control), (.medicated, .adhd)] {
            for e in MeasureCatalog.normed {
                let xa = cohort.players.indices.filter { groups[$0] == a }.compactMap { measures[$0].value(e.name) }
                let xb = cohort.players.indices.filter { groups[$0] == b }.compactMap { measures[$0].value(e.name) }
                let h = hedges(xa, xb)
                comparisons.append(Comparison(measure: e.name, groupA: a, groupB: b,
                                              a: GroupStats(n: xa.count, mean: Describe.mean(xa), sd: Describe.sd(xa)),
                                              b: GroupStats(n: xb.count, mean: Describe.mean(xb), sd: Describe.sd(xb)),
                                              g: h?.g, gLow: h?.low, gHigh: h?.high))
            }
        }

        // Model
        func features(_ i: Int) -> [Double]? {
            guard measures[i].encounters >= o.minimumEncounters else { return nil }
            let v = MeasureCatalog.features.map { measures[i].value($0) }
            return v.contains { $0 == nil } ? nil : v.map { $0! }
        }
        let train = cohort.players.indices.filter {
            (groups[$0] == .control || groups[$0] == .adhd) && features($0) != nil
        }
        var report: ModelReport?
        var unavailable: String?
        /// The player-facing reason there is no model (plain words; the rule that decides who counts).
        var unavailableForPlayers = "the model could not be fitted to this study's data"
        let rows = train.map { features($0)! }
        let labels = train.map { groups[$0] == .adhd }
        let nPos = labels.filter { $0 }.count
        let nNeg = train.count - nPos
        let predictors = MeasureCatalog.features.count
        let smaller = min(nPos, nNeg)
        if smaller < o.minimumClass || Double(smaller) / Double(predictors) < o.minimumEventsPerPredictor {
            let need = max(o.minimumClass, Int((o.minimumEventsPerPredictor * Double(predictors)).rounded(.up)))
            unavailableForPlayers = "the study does not have enough players yet. The model learns only from "
                + "players who completed the survey, take no ADHD medicine and met at least "
                + "\(o.minimumEncounters) obstacles; the smaller of its two groups (with and without an ADHD "
                + "diagnosis) needs at least \(need) such players and has fewer"
            unavailable =
                "too few players to fit a model with \(predictors) predictors: \(nPos) with and \(nNeg) without a "
                    + "diagnosis "
                + "(unmedicated, complete survey, \(o.minimumEncounters)+ obstacles). The smaller group needs at least "
                + "\(Int((o.minimumEventsPerPredictor * Double(predictors)).rounded(.up))) players "
                + "(\(GameNumber.short(o.minimumEventsPerPredictor)) per predictor) "
                + "and at least \(o.minimumClass); it has \(smaller) "
                + "(\(GameNumber.short(Double(smaller) / Double(predictors))) per predictor)"
                + "; at this cohort's make-up that takes about "
                + "\(Self.playersNeeded(cohort.players.count, smaller: smaller, need: need)) players in all "
                + "(it has \(cohort.players.count))"
        } else if let r = fitReport(rows: rows, labels: labels, ids: train.map { cohort.players[$0].id }, options: o) {
            report = r
        } else {
            unavailable = "the logistic regression did not converge"
        }
        if let unavailable { warnings.append("no model: " + unavailable) }
        // The ages the model was validated on: the training players' youngest to oldest.
        let trainAges = train.compactMap { cohort.players[$0].survey?.age }
        let validatedAges: ClosedRange<Int>? =
            report == nil ? nil : trainAges.min().flatMap { lo in trainAges.max().map { lo...$0 } }

        // Per-player likelihood
        var results: [PlayerResult] = []
        for i in cohort.players.indices {
            let m = measures[i]
            var lk = Likelihood(probability: nil, low: nil, high: nil, unavailable: nil, suggest: false, reason: "")
            if groups[i] == .medicated {
                lk.unavailable =
                    "Not estimated for medicated players: the model was fitted on unmedicated players, and medication "
                        + "changes these measures."
            } else if groups[i] == .unknown {
                lk.unavailable = "Not estimated: the survey is incomplete."
            } else if report == nil {
                lk.unavailable = "Not estimated: " + unavailableForPlayers + "."
                    + (features(i) == nil
                       ? " Your games count once you have met \(o.minimumEncounters) obstacles." : "")
            } else if let x = features(i), let r = report {
                let z = r.standardizer.apply(x)
                let p = r.model.probability(z), ci = r.model.interval(z)
                lk.probability = p; lk.low = ci.low; lk.high = ci.high
                // A training player sees the estimate from the fold that did not see them.
                if let oof = r.outOfFold[cohort.players[i].id] {
                    // Same interval width on the logit scale, centred on the out-of-fold estimate.
                    let d = Performance.logit(oof) - Performance.logit(p)
                    lk.probability = oof; lk.outOfFold = true
                    lk.low = Special.expit(Performance.logit(ci.low) + d);
                    lk.high = Special.expit(Performance.logit(ci.high) + d)
                }
            } else {
                lk.unavailable =
                    "Not estimated: fewer than \(o.minimumEncounters) obstacles, or a measure could not be computed."
            }
            lk.reason = suggestionReason(&lk, group: groups[i], measures: m, options: o)
            if lk.suggest, let age = cohort.players[i].survey?.age, let r = validatedAges, !r.contains(age) {
                lk.suggest = false
                lk.reason =
                    "Your age is outside the ages the model was validated on (\(r.lowerBound)–\(r.upperBound)), so no "
                        + "suggestion is made."
            }
            results.append(PlayerResult(id: cohort.players[i].id, group: groups[i], survey: cohort.players[i].survey,
                                        ageBand: band(i), measures: m, norms: norms[i], likelihood: lk))
        }
        return CohortAnalysis(options: o, players: results, groupCounts: counts, comparisons: comparisons,
                              model: report, modelUnavailable: unavailable,
                              validatedAges: validatedAges.map { [$0.lowerBound, $0.upperBound] }, warnings: warnings)
    }

    /// Players needed in all for the smaller training group to reach `need`, if the cohort's
    /// make-up stays as it is: ⌈players × need / smaller⌉ (smaller counted as at least 1).
    static func playersNeeded(_ players: Int, smaller: Int, need: Int) -> Int {
        (players * need + max(smaller, 1) - 1) / max(smaller, 1)
    }

    /// Applies the documented suggestion rule; sets `suggest` and returns the plain reason.
    static func suggestionReason(
        _ lk: inout Likelihood, group: Group, measures m: PlayerMeasures, options o: AnalysisOptions
    ) -> String {
        lk.suggest = false
        guard let p = lk.probability, let low = lk.low else { return "" }
        if group == .adhd { return "You reported a diagnosis, so no suggestion is made." }
        if m.encounters < o.suggestionEncounters || m.sessions < o.suggestionSessions {
            return
                "Not enough play yet for a reliable signal (needs \(o.suggestionEncounters) obstacles over "
                    + "\(o.suggestionSessions) sessions)."
        }
        if p >= o.suggestionProbability && low >= o.suggestionLowerBound {
            lk.suggest = true
            return "The estimate and its whole interval are high enough to suggest talking to a professional."
        }
        return "The estimate is not high enough, with enough confidence, to make a suggestion."
    }

    /// Hedges' g of a − b with pooled SD (n−1), small-sample factor J = 1 − 3/(4(n₁+n₂) − 9),
    /// SE = √((n₁+n₂)/(n₁n₂) + g²/(2(n₁+n₂))), 95 % interval g ± 1.96·SE.
    public static func hedges(_ a: [Double], _ b: [Double]) -> (g: Double, low: Double, high: Double)? {
        guard a.count >= 2, b.count >= 2, let ma = Describe.mean(a), let mb = Describe.mean(b),
              let sa = Describe.sd(a), let sb = Describe.sd(b) else { return nil }
        let n1 = Double(a.count), n2 = Double(b.count)
        let sp = (((n1 - 1) * sa * sa + (n2 - 1) * sb * sb) / (n1 + n2 - 2)).squareRoot()
        guard sp > 0 else { return nil }
        let g = (ma - mb) / sp * (1 - 3 / (4 * (n1 + n2) - 9))
        let se = ((n1 + n2) / (n1 * n2) + g * g / (2 * (n1 + n2))).squareRoot()
        return (g, g - 1.959963984540054 * se, g + 1.959963984540054 * se)
    }

    /// Stratified k-fold assignment: positives and negatives are each shuffled with a
    /// seeded Fisher–Yates (``SeededRandom``) and dealt round-robin to folds 0…k−1.
    public static func stratifiedFolds(labels: [Bool], k: Int, seed: UInt64) -> [Int] {
        var rng = SeededRandom(seed: seed)
        var fold = [Int](repeating: 0, count: labels.count)
        for cls in [true, false] {
            var idx = labels.indices.filter { labels[$0] == cls }
            rng.shuffle(&idx)
            for (pos, i) in idx.enumerated() { fold[i] = pos % k }
        }
        return fold
    }

    /// Fits the full model and the cross-validated performance.
    static func fitReport(rows: [[Double]], labels: [Bool], ids: [String], options o: AnalysisOptions) -> ModelReport? {
        let scaler = Standardizer(fitting: rows)
        guard let full = LogisticModel.fit(rows: rows.map(scaler.apply), labels: labels, C: o.C) else { return nil }
        let minClass = min(labels.filter { $0 }.count, labels.filter { !$0 }.count)
        let k = max(2, min(o.folds, minClass))
        let folds = stratifiedFolds(labels: labels, k: k, seed: o.foldSeed)
        var oof = [Double](repeating: 0, count: rows.count)
        for f in 0..<k {
            let tr = rows.indices.filter { folds[$0] != f }
            let s = Standardizer(fitting: tr.map { rows[$0] })
            guard let m = LogisticModel.fit(rows: tr.map { s.apply(rows[$0]) }, labels: tr.map { labels[$0] }, C: o.C)
            else { return nil }
            for i in rows.indices where folds[i] == f { oof[i] = m.probability(s.apply(rows[i])) }
        }
        let auc = ROC.auc(scores: oof, labels: labels)
        let se = ROC.delongSE(scores: oof, labels: labels)
        var bins: [CalibrationBin] = []
        let nb = o.calibrationBins
        for b in 0..<nb {
            let lo = Double(b) / Double(nb), hi = Double(b + 1) / Double(nb)
            let members = oof.indices.filter { oof[$0] >= lo && (oof[$0] < hi || (b == nb - 1 && oof[$0] <= hi)) }
            bins.append(
                CalibrationBin(
                    low: lo, high: hi, n: members.count,
                    meanPredicted: Describe.mean(members.map { oof[$0] }),
                    observed: members.isEmpty
                        ? nil : Double(members.filter { labels[$0] }.count) / Double(members.count)))
        }
        let brier =
            zip(oof, labels).reduce(0) { $0 + ($1.0 - ($1.1 ? 1 : 0)) * ($1.0 - ($1.1 ? 1 : 0)) } / Double(rows.count)
        let trainAUC = ROC.auc(scores: rows.map { full.probability(scaler.apply($0)) }, labels: labels)
        let cal = Performance.calibration(oof: oof, labels: labels)
        let opt = Performance.optimism(
            rows: rows, labels: labels, C: o.C, replicates: o.bootstrapReplicates, seed: o.bootstrapSeed)
        let tripod = TripodReport(n: rows.count, calibrationSlope: cal.slope, calibrationIntercept: cal.intercept,
                                  calibrationInTheLarge: cal.citl,
            atThreshold: Performance.atThreshold(o.suggestionProbability, oof: oof, labels: labels),
            apparentAUC: opt.apparent, optimism: opt.optimism, optimismCorrectedAUC: opt.corrected,
                                  bootstrapReplicates: opt.used)
        return ModelReport(features: MeasureCatalog.features, C: o.C, standardizer: scaler, model: full,
                           nTrain: rows.count, nPositive: labels.filter { $0 }.count, folds: k, cvAUC: auc,
                           cvAUCLow: auc.flatMap { a in se.map { max(0, a - 1.959963984540054 * $0) } },
                           cvAUCHigh: auc.flatMap { a in se.map { min(1, a + 1.959963984540054 * $0) } },
                           cvAUCSE: se, trainAUC: trainAUC, brier: brier, calibration: bins,
                           roc: ROC.curve(scores: oof, labels: labels),
                           outOfFold: Dictionary(uniqueKeysWithValues: zip(ids, oof)), tripod: tripod)
    }
}
