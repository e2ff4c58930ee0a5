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

// MARK: - The public game site's numbers, each through the Privacy module (docs/game-privacy.md)

/// Every number the public cohort page shows that is computed from players, released
/// with discrete Laplace noise under one ε split by ``GamePublicRelease/shares``. What is
/// not here (per-player rows, the private model and its standardiser, whiskers and outliers,
/// the measurement checks) is not published.
struct GamePublicRelease: Sendable {
    /// Statistics of a group are shown only when a conservative bound on its size reaches
    /// this (``sizeBound(_:)``).
    static let minimumGroup = 20
    /// Bins of the public model's score histograms (over ``GamePublicModel/scoreRange(_:)``).
    static let scoreBins = 10
    /// Grid steps of the released AUC (k̃/G) and the slack, in noise scales of the class
    /// totals, below the smaller noisy total that sets the AUC's floor M.
    static let aucSteps = 100_000, aucSlackScales = 4
    /// Bins of the τ histograms over [0, 600] ms (width 15 ms).
    static let tauBins = 40, tauRange = (0.0, 600.0)
    /// Grid steps of a clamped measure (the sum's sensitivity) and the clamp of the
    /// deviations from the noisy mean, in steps.
    static let steps = 100, deviationClamp = 25

    /// Clamp ranges of the published measures (docs/game-privacy.md, "Clamp ranges").
    /// Only three measures are compared on the public site: each more would add two
    /// queries to the same ε and make every mean noisier.
    static let ranges: [(measure: String, lower: Double, upper: Double)] = [
        ("hitRTSD", 0, 250), ("tau", 0, 400), ("omissionRate", 0, 0.4),
    ]

    /// The split of the release's ε (in 24ths; at the default ε = 6 a 24th is 0.25): counts,
    /// comparisons, τ quartiles, the public model's coefficients (``GamePublicModel``), its
    /// class totals, its AUC and its score histograms.
    static let shares: [(label: String, share: Rational)] = [
        ("counts", Rational(1, 24)), ("comparisons", Rational(6, 24)), ("tau", Rational(1, 24)),
        ("model-fit", Rational(4, 24)), ("model-n", Rational(1, 24)), ("model-auc", Rational(9, 24)),
        ("model", Rational(2, 24)),
    ]

    /// Queries of the comparisons part: one count, and a sum and a spread per measure.
    static var comparisonQueries: Int { 1 + 2 * ranges.count }

    struct Stat: Sendable { var n: Int; var mean: Double?; var sd: Double? }

    var releaseID: String
    var settings: GamePrivacySettings
    var spends: [Accountant.Spend]
    var groups = Group.allCases
    var bands = AgeBand.bands.map(\.label) + ["unknown"]
    var genders = ["female", "male", "other", "unknown"]
    /// Noisy counts [group][band][gender] (may be negative: noise is not clipped here).
    var cells: [[[Int]]]
    /// Per group, per measure (``ranges`` order): noisy n (players with every compared
    /// measure, the same for all measures), mean and SD.
    var stats: [Group: [Stat]] = [:]
    var tauQuartiles: [Group: [Double]] = [:]
    /// Noisy histograms of the public model's in-sample scores of the training players
    /// with and without a diagnosis (``GamePublicModel``).
    var scorePositive: [Int]?
    var scoreNegative: [Int]?
    /// The public model's noisy coefficients, in 1/``GamePublicModel/gridSteps``.
    var publicModel: [Int]?
    /// Noisy counts of the training players with and without a diagnosis.
    var classTotals: (positive: Int, negative: Int)?
    /// The noisy AUC in 1/``aucSteps``, the floor M it was normalised with and its
    /// sensitivity in grid steps (``PairwiseAUC``).
    var aucGrid: Int?
    var aucFloor = 0, aucSensitivity = 0

    /// Group sizes as shown: the sums of a group's noisy cells, at least 0 (post-processing).
    func groupSize(_ g: Group) -> Int {
        let gi = groups.firstIndex(of: g)!
        return max(0, cells[gi].flatMap { $0 }.reduce(0, +))
    }

    /// ε of one named part.
    func epsilon(_ label: String) -> Rational { spends.first { $0.label == label }!.epsilon }

    static func make(_ a: CohortAnalysis, settings: GamePrivacySettings, inputs: Data) -> GamePublicRelease {
        let id = settings.releaseID(inputs: inputs)
        var acc = Accountant(total: Rational.milli(settings.epsilonMilli))
        let eps = Dictionary(uniqueKeysWithValues: shares.map { ($0.label, acc.spend($0.label, share: $0.share)) })
        func rng(_ label: String) -> KeyedRandom {
            KeyedRandom(key: settings.key, context: Data((id + "/" + label).utf8) + inputs)
        }
        let groups = Group.allCases
        let bands = AgeBand.bands.map(\.label) + ["unknown"], genders = ["female", "male", "other", "unknown"]

        // Counts: one histogram over group × band × gender (each player in one cell).
        var r = rng("counts")
        let noisy = Mechanisms.noisyHistogram(countCells(a.players), epsilon: eps["counts"]!, &r)
        let cells = groups.indices.map { gi in
            bands.indices.map { bi in genders.indices.map { ki in noisy[(gi * bands.count + bi) * genders.count + ki] }
            }
        }
        var out = GamePublicRelease(releaseID: id, settings: settings, spends: acc.spent, cells: cells)

        // Comparisons, over the group's players with every compared measure: one noisy
        // count, then per measure a clamped sum and a clamped sum of squared deviations
        // from the noisy mean; groups are disjoint (parallel composition).
        let perQuery = eps["comparisons"]! / Rational(UInt128(comparisonQueries))
        for g in groups {
            var r = rng("comparisons/" + g.rawValue)
            let members = a.players.filter { $0.group == g }
            let complete = completeCases(members)
            let n = Mechanisms.laplace(complete.count, sensitivity: 1, epsilon: perQuery, &r)
            out.stats[g] = ranges.indices.map { i in
                let m = ranges[i]
                let s = Mechanisms.laplace(gridSum(complete, measure: i), sensitivity: steps, epsilon: perQuery, &r)
                let meanK = n > 0 ? min(Double(steps), max(0, Double(s) / Double(n))) : nil
                let v = Mechanisms.laplace(spread(complete, measure: i, meanK: meanK ?? 0),
                                           sensitivity: deviationClamp * deviationClamp, epsilon: perQuery, &r)
                let unit = (m.upper - m.lower) / Double(steps)
                let sd = n > 1 ? (max(0, Double(v)) / Double(n - 1)).squareRoot() * unit : nil
                return Stat(n: n, mean: meanK.map { m.lower + $0 * unit }, sd: meanK == nil ? nil : sd)
            }
            // τ quartiles from a noisy histogram (no individual values, whiskers or outliers).
            var t = rng("tau/" + g.rawValue)
            let h = Mechanisms.noisyHistogram(tauHistogram(members), epsilon: eps["tau"]!, &t)
            out.tauQuartiles[g] = Mechanisms.quantiles(h, lower: tauRange.0, upper: tauRange.1, [0.25, 0.5, 0.75])
        }

        // Model: one noisy fit on every training player; then, with that released model
        // fixed, each training player's score is their own: class totals, the AUC of the
        // scores (floor M from the noisy totals) and the class histograms of the scores.
        let train = GamePublicModel.training(a.players, minimumEncounters: a.options.minimumEncounters)
        var r1 = rng("model-fit")
        let model = GamePublicModel.noisyModel(train, epsilon: eps["model-fit"]!, rng: &r1)
        out.publicModel = model
        let scores = GamePublicModel.scores(train, model: model)
        var rn = rng("model-n")
        let totals = (
            positive: Mechanisms.laplace(scores.positive.count, sensitivity: 1, epsilon: eps["model-n"]!, &rn),
            negative: Mechanisms.laplace(scores.negative.count, sensitivity: 1, epsilon: eps["model-n"]!, &rn)
        )
        out.classTotals = totals
        out.aucFloor = aucFloor(totals, epsilon: eps["model-n"]!)
        out.aucSensitivity = PairwiseAUC.sensitivity(floor: out.aucFloor, steps: aucSteps)
        let k = PairwiseAUC.grid(
            twiceU: PairwiseAUC.twiceMannWhitney(positive: scores.positive, negative: scores.negative),
            nPositive: scores.positive.count, nNegative: scores.negative.count, floor: out.aucFloor, steps: aucSteps)
        var ra = rng("model-auc")
        out.aucGrid = Mechanisms.laplace(k, sensitivity: out.aucSensitivity, epsilon: eps["model-auc"]!, &ra)
        let h = GamePublicModel.histograms(scores, model: model, bins: scoreBins)
        var r2 = rng("model")
        out.scorePositive = Mechanisms.noisyHistogram(h.positive, epsilon: eps["model"]!, &r2)
        out.scoreNegative = Mechanisms.noisyHistogram(h.negative, epsilon: eps["model"]!, &r2)
        return out
    }

    /// The AUC's floor M (post-processing of the noisy class totals): the smaller total less
    /// ⌈``aucSlackScales``/ε_n⌉ (that many noise scales, so a true total below M is rare), and
    /// never below the model card's minimum class.
    static func aucFloor(_ totals: (positive: Int, negative: Int), epsilon: Rational) -> Int {
        let slack = Int((UInt128(aucSlackScales) * epsilon.den + epsilon.num - 1) / epsilon.num)
        return max(GamePublicModel.minimumClass, min(totals.positive, totals.negative) - slack)
    }

    // MARK: The exact statistics the noise is added to (each player's own data only)

    /// Players by group × band × gender, flattened (group-major): one player, one cell.
    static func countCells(_ players: [PlayerResult]) -> [Int] {
        let groups = Group.allCases, bands = AgeBand.bands.map(\.label) + ["unknown"],
            genders = ["female", "male", "other", "unknown"]
        var exact = [Int](repeating: 0, count: groups.count * bands.count * genders.count)
        for p in players {
            let gi = groups.firstIndex(of: p.group)!,
                bi = bands.firstIndex(of: p.ageBand ?? "unknown") ?? bands.count - 1
            let ki = genders.firstIndex(of: p.survey?.gender ?? "unknown") ?? genders.count - 1
            exact[(gi * bands.count + bi) * genders.count + ki] += 1
        }
        return exact
    }

    /// The players with every compared measure.
    static func completeCases(_ players: [PlayerResult]) -> [PlayerResult] {
        players.filter { p in ranges.allSatisfy { p.measures.value($0.measure) != nil } }
    }

    /// Σ grid value of measure `i` (``ranges``) over complete cases: sensitivity ``steps``.
    static func gridSum(_ complete: [PlayerResult], measure i: Int) -> Int {
        let m = ranges[i]
        return Mechanisms.gridSum(
            complete.compactMap { $0.measures.value(m.measure) }, lower: m.lower, upper: m.upper, steps: steps)
    }

    /// Σ min(|k − meanK|, D)², rounded per player: sensitivity D² (``deviationClamp``).
    static func spread(_ complete: [PlayerResult], measure i: Int, meanK: Double) -> Int {
        let m = ranges[i], c = Double(deviationClamp)
        return complete.compactMap { $0.measures.value(m.measure) }.reduce(0) { acc, x in
            let d = min(c, abs(Double(Mechanisms.grid(x, lower: m.lower, upper: m.upper, steps: steps)) - meanK))
            return acc + Int((d * d).rounded())
        }
    }

    /// The τ histogram of `players` (``tauBins`` over ``tauRange``): one player, one cell.
    static func tauHistogram(_ players: [PlayerResult]) -> [Int] {
        Mechanisms.histogram(
            players.compactMap { $0.measures.exGaussian?.params.tau }, lower: tauRange.0, upper: tauRange.1,
            bins: tauBins)
    }

    // MARK: Figures derived from the noisy histograms (post-processing)

    struct ModelFigures: Sendable {
        /// The noisy class totals (negative as 0).
        var nPositive: Int, nNegative: Int
        var auc: Double?, aucLow: Double?, aucHigh: Double?
        var brier: Double?
        /// (threshold probability, fpr, tpr) at each bin edge, from the top down.
        var roc: [(Double, Double, Double)]
        /// Per score bin: (low, high) as probabilities σ(edge), n, observed share (nil when
        /// n is below ``GamePublicRelease/minimumGroup``), and the predicted probability σ(bin middle).
        var calibration: [(Double, Double, Int, Double?, Double)]
    }

    /// The model figures when they are shown: both noisy class totals at least
    /// ``GamePublicModel/minimumClass`` (a decision on released numbers only).
    func shownModelFigures() -> ModelFigures? {
        modelFigures().flatMap {
            $0.nPositive >= GamePublicModel.minimumClass && $0.nNegative >= GamePublicModel.minimumClass ? $0 : nil
        }
    }

    /// Post-processing of the model part: the AUC from its own release, everything else
    /// from the score histograms (negative cells as 0).
    func modelFigures() -> ModelFigures? {
        guard let sp = scorePositive, let sn = scoreNegative, let model = publicModel, let totals = classTotals,
              let k = aucGrid else { return nil }
        let nP = max(0, totals.positive), nN = max(0, totals.negative)
        var auc: Double? = nil, low: Double? = nil, high: Double? = nil
        if nP > 0 && nN > 0 {
            let A = min(1, max(0, Double(k) / Double(Self.aucSteps)))
            // Hanley & McNeil (1982) variance from the noisy totals, plus the noise's own.
            let q1 = A / (2 - A), q2 = 2 * A * A / (1 + A)
            let hm =
                (A * (1 - A) + Double(nP - 1) * (q1 - A * A) + Double(nN - 1) * (q2 - A * A))
                / (Double(nP) * Double(nN))
            let noise =
                Mechanisms.laplaceSD(scale: Double(aucSensitivity) / epsilon("model-auc").double)
                / Double(Self.aucSteps)
            let se = (max(0, hm) + noise * noise).squareRoot()
            auc = A; low = max(0, A - 1.959963984540054 * se); high = min(1, A + 1.959963984540054 * se)
        }
        let pos = sp.map { max(0, $0) }, neg = sn.map { max(0, $0) }
        let hP = pos.reduce(0, +), hN = neg.reduce(0, +)
        let bins = pos.count, range = GamePublicModel.scoreRange(model)
        func edge(_ b: Int) -> Double { range.lower + (range.upper - range.lower) * Double(b) / Double(bins) }
        var roc: [(Double, Double, Double)] = [(1, 0, 0)]
        var cp = 0, cn = 0
        for b in stride(from: bins - 1, through: 0, by: -1) {
            cp += pos[b]; cn += neg[b]
            roc.append(
                (
                    b == 0 ? 0 : Special.expit(edge(b)), hN > 0 ? Double(cn) / Double(hN) : 0,
                    hP > 0 ? Double(cp) / Double(hP) : 0
                ))
        }
        let calibration = (0..<bins).map { b -> (Double, Double, Int, Double?, Double) in
            let n = pos[b] + neg[b]
            return (
                b == 0 ? 0 : Special.expit(edge(b)), b == bins - 1 ? 1 : Special.expit(edge(b + 1)), n,
                n >= Self.minimumGroup ? Double(pos[b]) / Double(n) : nil, Special.expit((edge(b) + edge(b + 1)) / 2)
            )
        }
        var brier: Double? = nil
        if hP + hN > 0 {
            brier = calibration.indices.reduce(0.0) { acc, b in
                let c = calibration[b].4
                return acc + Double(pos[b]) * (1 - c) * (1 - c) + Double(neg[b]) * c * c
            } / Double(hP + hN)
        }
        return ModelFigures(nPositive: nP, nNegative: nN, auc: auc, aucLow: low, aucHigh: high, brier: brier,
                            roc: roc, calibration: calibration)
    }

    /// Hedges' g of two published groups from their noisy n, mean and SD (as
    /// ``CohortAnalyzer/hedges(_:_:)`` does from exact values).
    static func hedges(_ a: Stat, _ b: Stat) -> (g: Double, low: Double, high: Double)? {
        guard a.n >= 2, b.n >= 2, let ma = a.mean, let mb = b.mean, let sa = a.sd, let sb = b.sd else { return nil }
        let n1 = Double(a.n), n2 = Double(b.n)
        let sp = (((n1 - 1) * sa * sa + (n2 - 1) * sb * sb) / (n1 + n2 - 2)).squareRoot()
        guard sp > 0 else { return nil }
        let g = (ma - mb) / sp * (1 - 3 / (4 * (n1 + n2) - 9))
        let se = ((n1 + n2) / (n1 * n2) + g * g / (2 * (n1 + n2))).squareRoot()
        return (g, g - 1.959963984540054 * se, g + 1.959963984540054 * se)
    }
}
#endif
