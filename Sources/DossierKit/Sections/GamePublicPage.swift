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
import Render
import TextBasics

// MARK: - The public cohort page: only numbers from ``GamePublicRelease``

enum GamePublicPage {
    /// What `dossier publish` reads to keep the ledger (docs/game-privacy.md, "privacy.json").
    struct ReleaseFile: Encodable {
        var release: String
        var section = "game"
        var epsilon: String
        var delta: String
        var lifetimeEpsilon: String
        var spends: [[String: String]]
        /// With a database: its public name (where `publish` finds the ledger) and the
        /// ``ReleaseSeal`` over the fields above.
        var database: String?
        var seal: String?
    }

    static func build(_ analysis: CohortAnalysis, release rel: GamePublicRelease, simulated: Bool) -> (page: Page,
            files: [OutputFile]) {
        var files: [OutputFile] = []
        let settings = rel.settings
        // Counts
        func count(_ n: Int) -> String { "\(max(0, n))" }
        // Each group's row as shown (non-negative, adding up to the group's size); the
        // "All players" row adds the shown rows.
        func tableModel(_ columns: [String], _ cell: (Int, Int) -> Int) -> GameCountTable {
            let shown = rel.groups.indices.map { group in
                GamePublicRelease.shownRow(columns.indices.map { cell(group, $0) })
            }
            let rows = rel.groups.indices.map { group in
                GameCountTable.Row(label: rel.groups[group].label, cells: shown[group].cells.map(count),
                                   total: count(shown[group].total))
            }
            let columnTotals = columns.indices.map { column in shown.reduce(0) { $0 + $1.cells[column] } }
            return GameCountTable(columns: columns, rows: rows,
                                  totals: .init(label: "All players", cells: columnTotals.map(count),
                                                total: count(columnTotals.reduce(0, +))))
        }
        let band = tableModel(rel.bands) { g, b in rel.cells[g][b].reduce(0, +) }
        let gender = tableModel(rel.genders) { g, k in rel.cells[g].reduce(0) { $0 + $1[k] } }
        var countCSV: [[CSVWriter.Cell]] = []
        for (gi, g) in rel.groups.enumerated() {
            for (bi, b) in rel.bands.enumerated() {
                for (ki, k) in rel.genders.enumerated() {
                    countCSV.append([.text(g.rawValue), .text(b), .text(k), CSVWriter.number(rel.cells[gi][bi][ki])])
                }
            }
        }
        files.append(OutputFile(path: "game/group-counts.csv",
                                data: GameFormat.csv(["group", "age_band", "gender", "n_noisy"], countCSV)))
        let total = rel.groups.reduce(0) { $0 + rel.groupSize($1) }

        // Comparisons
        let measures = GamePublicRelease.ranges.map(\.measure)
        func stat(_ g: Group, _ i: Int) -> GamePublicRelease.Stat? {
            guard rel.shown(g), let st = rel.stats[g]?[i] else { return nil }
            return st
        }
        func text(_ st: GamePublicRelease.Stat?, _ m: String) -> String {
            guard let st else { return "not shown (small group)" }
            return "\(GameFormat.value(st.mean, measure: m)) ± \(GameFormat.value(st.sd, measure: m))"
                + " (n ≈ \(max(0, st.n)))"
        }
        var blocks: [GameComparisonBlock] = [], csv: [[CSVWriter.Cell]] = []
        for (ga, gb) in [(Group.adhd, Group.control), (.medicated, .control), (.medicated, .adhd)] {
            let rows = measures.indices.map { i -> GameComparisonBlock.Row in
                let statsA = stat(ga, i), statsB = stat(gb, i)
                let hedges = statsA.flatMap { first in statsB.flatMap { rel.hedgesWithNoise(first, $0, measure: i) } }
                csv.append([.text(measures[i]), .text(ga.rawValue), .text(gb.rawValue),
                            statsA.map { CSVWriter.number($0.n) } ?? .text("not shown"),
                            CSVWriter.number(statsA?.mean), CSVWriter.number(statsA?.sd),
                            statsB.map { CSVWriter.number($0.n) } ?? .text("not shown"),
                            CSVWriter.number(statsB?.mean), CSVWriter.number(statsB?.sd),
                            CSVWriter.number(hedges?.g), CSVWriter.number(hedges?.low), CSVWriter.number(hedges?.high)])
                return GameComparisonBlock.Row(
                    label: MeasureCatalog.label(measures[i]), methods: nil,
                    statsA: text(statsA, measures[i]), statsB: text(statsB,
                                                                    measures[i]), hedgesG: GameFormat.num(hedges?.g, 2),
                    interval: hedges.map { "\(GameFormat.num($0.low, 2)) to \(GameFormat.num($0.high, 2))" } ?? "–")
            }
            blocks.append(GameComparisonBlock(groupA: ga.label, groupB: gb.label, rows: rows))
        }
        files.append(OutputFile(path: "game/comparisons.csv", data: GameFormat.csv(
            ["measure", "group_a", "group_b", "n_a", "mean_a", "sd_a", "n_b", "mean_b", "sd_b", "hedges_g", "g_low",
             "g_high"], csv)))

        let tauRows = rel.groups.filter(rel.shown).compactMap { group -> GamePublicPageModel.TauRow? in
            guard let quartiles = rel.tauQuartiles[group] else { return nil }
            return .init(group: group.label, lowerQuartile: GameFormat.num(quartiles[0], 0),
                         median: GameFormat.num(quartiles[1], 0), upperQuartile: GameFormat.num(quartiles[2], 0))
        }
        files.append(OutputFile(path: "game/tau-quartiles.csv", data: GameFormat.csv(["group", "q1", "median", "q3"],
            rel.groups.filter(rel.shown).compactMap { g in
                rel.tauQuartiles[g].map { q in [.text(g.rawValue)] + q.map { CSVWriter.number($0) } }
            })))

        // Privacy: the split and the expected error of each kind of number.
        func sd(_ sensitivity: Int,
                _ e: Rational) -> Double { Mechanisms.laplaceSD(scale: Double(sensitivity) / e.double) }
        let perQuery = rel.comparisonQueryEpsilon
        let spendRows = rel.spends.map { spend in
            let what: String
            let perUnit = GameFormat.num(sd(1, spend.epsilon), 1)   // players, SD of the noise on one count
            /// The noise SD of a value released on a grid of `steps` steps (the model's
            /// coefficients, its AUC), with `digits` decimals.
            func gridNoise(_ sensitivity: Int, steps: Int, digits: Int) -> String {
                GameFormat.num(sd(sensitivity, spend.epsilon) / Double(steps), digits)
            }
            switch spend.label {
            case "counts":
                what = "every count in the tables above: ± \(perUnit) players (SD of the noise per cell)"
            case "comparisons":
                let meanNoise = sd(GamePublicRelease.steps, perQuery) / Double(GamePublicRelease.steps)
                what = "per group a count, and per measure a clamped sum and a clamped spread "
                    + "(ε \(GameFormat.num(perQuery.double, 3)) each); in a group of 100 players a mean's noise SD "
                    + "is about \(GameFormat.num(meanNoise, 1)) % of the measure's range, half that with 200 "
                    + "(ranges: hit RT SD 0–250 ms, τ 0–400 ms, omission rate 0–40 %)"
            case "tau":
                what = "τ histograms per group (\(GamePublicRelease.tauBins) bins): ± \(perUnit) players per bin"
            case "model-fit":
                let noise = gridNoise(GamePublicModel.sensitivity, steps: GamePublicModel.gridSteps, digits: 2)
                what = "the public model's \(GamePublicModel.dimension) coefficients: ± \(noise) per coefficient"
            case "model-n":
                what = "the public model's training players with and without a diagnosis: ± \(perUnit) players each"
            case "model-auc":
                let noise = gridNoise(rel.aucSensitivity, steps: GamePublicRelease.aucSteps, digits: 3)
                what = "the public model's AUC, released on its own: ± \(noise) (noise SD) "
                    + "with \(rel.aucFloor) or more players in each class"
            default:
                what = "histograms of the public model's scores by diagnosis (\(GamePublicRelease.scoreBins) bins), "
                    + "for the ROC and calibration curves: ± \(perUnit) players per bin"
            }
            return GamePublicPageModel.Spend(label: spend.label, epsilon: GameFormat.num(spend.epsilon.double, 3),
                                             what: what)
        }
        var release = ReleaseFile(release: rel.releaseID, epsilon: PrivacyNumber.text(milli: settings.epsilonMilli),
                                  delta: settings.delta,
                                  lifetimeEpsilon: PrivacyNumber.text(milli: settings.lifetimeMilli),
                                  spends: rel.spends.map { ["part": $0.label,
                                                            "epsilon": cFormat("%.6g", $0.epsilon.double)] })
        if let id = settings.databaseID {
            release.database = id
            release.seal = ReleaseSeal.seal(key: settings.key, release: release.release, section: release.section,
                                            epsilon: release.epsilon, delta: release.delta,
                                            lifetimeEpsilon: release.lifetimeEpsilon, database: id)
        }
        if let j = try? GameFormat.json(release) { files.append(OutputFile(path: "game/privacy.json", data: j)) }

        let countNoise = sd(1, rel.epsilon("counts"))
        let cellsPerGroup = rel.bands.count * rel.genders.count
        let privacy = GamePublicPageModel.Privacy(
            epsilon: PrivacyNumber.text(milli: settings.epsilonMilli), delta: settings.delta, release: rel.releaseID,
            lifetime: PrivacyNumber.text(milli: settings.lifetimeMilli), spends: spendRows,
            minimum: GamePublicRelease.minimumGroup, perCell: GameFormat.num(countNoise, 1),
            // A total of k cells carries k cells' noise: SD × √k (a group: bands × genders cells).
            cellsPerGroup: cellsPerGroup,
            perGroup: GameFormat.num(countNoise * Double(cellsPerGroup).squareRoot(), 0),
            perAll: GameFormat.num(countNoise * Double(rel.cells.count * cellsPerGroup).squareRoot(), 0))
        var model = GamePublicPageModel(
            players: "\(max(0, total))", bandTable: band, genderTable: gender, simulated: simulated,
            groups: rel.groups.map { GameGroupRow(group: $0.label, count: count(rel.groupSize($0))) },
            comparisons: blocks, tau: tauRows, wording: GamePlayerPage.wording, privacy: privacy,
            minimumClass: GamePublicModel.minimumClass, options: GameCohortPage.options(analysis.options))
        // The model card only when both noisy class totals are large enough (a decision on
        // released numbers only).
        if let figures = rel.shownModelFigures() {
            let roc = Charts.line(series: [
                XYSeries(name: "public model (in-sample, noisy bins)", xy: figures.roc.map { ($0.1, $0.2) }),
                XYSeries(name: "chance", xy: [(0, 0), (1, 1)]),
            ], options: GameFormat.unitSquare(
                title: "ROC curve (noisy bins)",
                description: "True against false positive rate at each bin edge of the noisy score histograms",
                xLabel: "false positive rate", yLabel: "true positive rate"))
            let calPoints = figures.calibration.compactMap { c in
                c.3.map { XYPoint(x: c.4, y: $0, label: "n ≈ \(c.2)") }
            }
            let calibration = Charts.line(series: [
                XYSeries(name: "observed", points: calPoints), XYSeries(name: "perfect calibration",
                        xy: [(0, 0), (1, 1)]),
            ], options: GameFormat.unitSquare(
                title: "Calibration (noisy bins)",
                description: "Observed share with a diagnosis against the probability at the bin's middle, "
                    + "from the noisy histograms",
                xLabel: "predicted probability (bin middle)", yLabel: "observed share"))
            model.card = GamePublicPageModel.ModelCard(
                nPositive: figures.nPositive, nNegative: figures.nNegative,
                features: GamePublicModel.features.map { feature in
                    let unit = MeasureCatalog.normed.first { $0.name == feature.measure }?.unit ?? ""
                    func bound(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : "\(x)" }   // 40, 0.25
                    return "\(MeasureCatalog.label(feature.measure)) (\(bound(feature.lower))–\(bound(feature.upper))"
                        + "\(unit.isEmpty ? "" : " " + unit))"
                }.joined(separator: ", "),
                lambda: GameFormat.num(GamePublicModel.lambda, 0),
                auc: GameFormat.num(figures.auc, 2), aucLow: GameFormat.num(figures.aucLow,
                        2), aucHigh: GameFormat.num(figures.aucHigh, 2),
                brier: GameFormat.num(figures.brier, 2), roc: roc, calibration: calibration,
                bins: figures.calibration.map {
                    .init(range: "\(GameFormat.num($0.0, 2))–\(GameFormat.num($0.1, 2))", count: "\($0.2)",
                          observed: GameFormat.num($0.3, 2))
                })
            files.append(OutputFile(path: "game/score-histogram.csv",
                                    data: GameFormat.csv(["bin_low", "bin_high", "with_diagnosis_noisy",
                                                          "without_noisy"],
                rel.scorePositive!.indices.map { b in
                    [CSVWriter.number(figures.calibration[b].0), CSVWriter.number(figures.calibration[b].1),
                     CSVWriter.number(rel.scorePositive![b]), CSVWriter.number(rel.scoreNegative![b])]
                })))
            files.append(OutputFile(path: "game/roc.csv", data: GameFormat.csv(["threshold", "fpr", "tpr"],
                figures.roc.map { [CSVWriter.number($0.0), CSVWriter.number($0.1), CSVWriter.number($0.2)] })))
            files.append(OutputFile(path: "game/calibration.csv",
                                    data: GameFormat.csv(["bin_low", "bin_high", "n", "predicted", "observed"],
                figures.calibration.map { [CSVWriter.number($0.0), CSVWriter.number($0.1), CSVWriter.number($0.2),
                                           CSVWriter.number($0.4), CSVWriter.number($0.3)] })))
            struct ModelJSON: Encodable {
                struct Feature: Encodable { var measure: String; var lower: Double; var upper: Double }
                var features: [Feature]; var lambda: Double; var noisyCoefficients: [Double]
                var nTrain: Int; var nPositive: Int; var scoreRange: [Double]
                var auc: Double?; var aucLow: Double?; var aucHigh: Double?; var brier: Double?
                var privacyRelease: String
            }
            let coefficients = (rel.publicModel ?? []).map { Double($0) / Double(GamePublicModel.gridSteps) }
            let features = GamePublicModel.features.map {
                ModelJSON.Feature(measure: $0.measure, lower: $0.lower, upper: $0.upper)
            }
            let scoreRange: [Double] = rel.publicModel.map { m in
                let r = GamePublicModel.scoreRange(m)
                return [r.lower, r.upper]
            } ?? []
            if let j = try? GameFormat.json(ModelJSON(features: features,
                                                       lambda: GamePublicModel.lambda, noisyCoefficients: coefficients,
                                                       nTrain: figures.nPositive + figures.nNegative,
                                                       nPositive: figures.nPositive, scoreRange: scoreRange,
                                                       auc: figures.auc, aucLow: figures.aucLow,
                                                       aucHigh: figures.aucHigh, brier: figures.brier,
                                                       privacyRelease: rel.releaseID)) {
                files.append(OutputFile(path: "game/model.json", data: j))
            }
        }
        return (Page(path: "game/cohort/index.html", title: "Cohort summary", template: "game/cohort-public",
                     model: model,
                     styles: ["assets/game/game.css"]), files)
    }
}
#endif
