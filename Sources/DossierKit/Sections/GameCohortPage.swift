// Compiled only with the game domain (Package.swift excludes GameSection.swift otherwise).
#if DOMAIN_GAME
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import GameAnalytics
import Render

// MARK: - Cohort page

enum GameCohortPage {
    static func build(_ analysis: CohortAnalysis, simulated: Bool) -> (page: Page, files: [OutputFile]) {
        var files: [OutputFile] = []
        let counts = CountTables.build(analysis.players)
        let groupRows = counts.groups.indices.map { index in
            GameGroupRow(group: counts.groups[index].label, count: counts.groupTotals[index].text)
        }
        func row(_ label: String, _ cells: [CountTables.Cell], _ total: CountTables.Cell) -> GameCountTable.Row {
            GameCountTable.Row(label: label, cells: cells.map(\.text), total: total.text)
        }
        let bandTable = GameCountTable(
            columns: counts.bands,
            rows: counts.groups.indices.map { row(counts.groups[$0].label, counts.byBand[$0], counts.groupTotals[$0]) },
            totals: row("All players", counts.bandTotals, counts.total))
        let genderTable = GameCountTable(
            columns: counts.genders,
            rows: counts.groups.indices.map { row(counts.groups[$0].label, counts.byGender[$0],
                                                  counts.groupTotals[$0]) },
            totals: row("All players", counts.genderTotals, counts.total))
        var countCSV: [[CSVWriter.Cell]] = []
        for (table, cols, cells, totals) in [("age_band", counts.bands, counts.byBand, counts.bandTotals),
                                             ("gender", counts.genders, counts.byGender, counts.genderTotals)] {
            for (gi, g) in counts.groups.enumerated() {
                for (ci, c) in cols.enumerated() {
                    countCSV.append([.text(table), .text(g.rawValue), .text(c), .text(cells[gi][ci].text)])
                }
                countCSV.append([.text(table), .text(g.rawValue), .text("all"), .text(counts.groupTotals[gi].text)])
            }
            for (ci, c) in cols.enumerated() {
                countCSV.append([.text(table), .text("all"), .text(c), .text(totals[ci].text)])
            }
            countCSV.append([.text(table), .text("all"), .text("all"), .text(counts.total.text)])
        }
        files.append(OutputFile(path: "game/group-counts.csv",
                                data: GameFormat.csv(["table", "group", "column", "n"], countCSV)))
        let shown = Set(counts.groups.filter(counts.isShown))

        // Comparisons: a group's statistics only when its size is published and n ≥ 5.
        let comparisons = analysis.comparisons.map { original -> Comparison in
            var comparison = original
            for side in [\Comparison.a, \Comparison.b] {
                let group = side == \Comparison.a ? comparison.groupA : comparison.groupB
                if !shown.contains(group) || comparison[keyPath: side].n < Suppression.threshold {
                    comparison[keyPath: side] = GroupStats(n: -1, mean: nil, sd: nil)
                    comparison.g = nil; comparison.gLow = nil; comparison.gHigh = nil
                }
            }
            return comparison
        }
        var comparisonBlocks: [GameComparisonBlock] = []
        for (groupA, groupB) in [(Group.adhd, Group.control), (.medicated, .control), (.medicated, .adhd)] {
            let rows = comparisons.filter { $0.groupA == groupA && $0.groupB == groupB }.map { comparison in
                let interval = comparison.g == nil
                    ? "–" : "\(GameFormat.num(comparison.gLow, 2)) to \(GameFormat.num(comparison.gHigh, 2))"
                return GameComparisonBlock.Row(
                    label: MeasureCatalog.label(comparison.measure), methods: GameMethodsPage.link(comparison.measure),
                    statsA: GameCohortPage.stats(comparison.a, comparison.measure),
                    statsB: GameCohortPage.stats(comparison.b, comparison.measure),
                    hedgesG: GameFormat.num(comparison.g, 2), interval: interval)
            }
            comparisonBlocks.append(GameComparisonBlock(groupA: groupA.label, groupB: groupB.label, rows: rows))
        }
        files.append(OutputFile(path: "game/comparisons.csv", data: GameFormat.csv(
            ["measure", "group_a", "group_b", "n_a", "mean_a", "sd_a", "n_b", "mean_b", "sd_b", "hedges_g", "g_low",
             "g_high"],
            comparisons.map { c -> [CSVWriter.Cell] in
                [.text(c.measure), .text(c.groupA.rawValue), .text(c.groupB.rawValue), GameCohortPage.nCell(c.a.n),
                 CSVWriter.number(c.a.mean), CSVWriter.number(c.a.sd),
                 GameCohortPage.nCell(c.b.n), CSVWriter.number(c.b.mean), CSVWriter.number(c.b.sd),
                 CSVWriter.number(c.g), CSVWriter.number(c.gLow), CSVWriter.number(c.gHigh)]
            })))

        // τ and variability by group
        let present = Group.allCases.filter { g in
            shown.contains(g)
                && analysis.players.filter({ $0.group == g && $0.measures.exGaussian != nil }).count
                    >= Suppression.threshold
        }
        let box = Charts.boxPlot(groups: present.map { g in
            (name: g.label,
             values: analysis.players.filter { $0.group == g }.compactMap { $0.measures.exGaussian?.params.tau })
        }, options: ChartOptions(title: "Ex-Gaussian τ by group",
                                 description: "Distribution of each player's fitted τ (ms) by group",
                                 yLabel: "τ (ms)", dataSummary: false))

        let summary = CohortSummary.of(analysis.players)
        let blockRows = summary.blocks.filter { $0.players >= Suppression.threshold }.map {
            GameCohortModel.Block(
                block: $0.block, players: $0.players, reactionTime: GameFormat.num($0.hitRTMean, 0),
                obstacles: $0.obstacles,
                omissions: GameFormat.percent($0.obstacles > 0 ? Double($0.omissions) / Double($0.obstacles) : nil))
        }
        let summaryModel = GameCohortModel.Summary(
            tauPlayers: summary.tauPlayers, tauCensored: GameFormat.num(summary.tauCensoredMean, 0),
            tauUncensored: GameFormat.num(summary.tauUncensoredMean, 0), tauShift: GameFormat.num(summary.tauShiftMean,
                    0),
            sessions: summary.sessions, invalid: summary.invalidSessions, practicePlayers: summary.practicePlayers,
            practice: GameFormat.num(summary.practiceSlopeMean, 1), blocks: blockRows)
        var model = GameCohortModel(
            summary: summaryModel, groups: groupRows, bandTable: bandTable, genderTable: genderTable,
            simulated: simulated, comparisons: comparisonBlocks, box: box, players: counts.total.text,
            wording: GamePlayerPage.wording, unavailable: analysis.modelUnavailable
                ?? "", options: options(analysis.options))
        if let result = analysis.model {
            let roc = Charts.line(series: [
                XYSeries(name: "model (out-of-fold)", xy: result.roc.map { ($0.fpr, $0.tpr) }),
                XYSeries(name: "chance", xy: [(0, 0), (1, 1)]),
            ], options: GameFormat.unitSquare(
                title: "ROC curve (cross-validated)",
                description: "True against false positive rate of the out-of-fold probabilities",
                xLabel: "false positive rate", yLabel: "true positive rate"))
            // Bins under 5 players are suppressed (their share would describe a handful of people).
            let binStatus = Suppression.apply(values: result.calibration.map(\.n) + [result.nTrain],
                                              equations: [.init(parts: Array(result.calibration.indices),
                                                                total: result.calibration.count)])
            let bins = zip(result.calibration, binStatus).map { bin, status -> CalibrationBin in
                status == .shown
                    ? bin : CalibrationBin(low: bin.low, high: bin.high, n: -1, meanPredicted: nil, observed: nil)
            }
            let binText = result.calibration.indices.map { Suppression.text(result.calibration[$0].n, binStatus[$0]) }
            let filled = bins.filter { $0.n > 0 }
            let calibration = Charts.line(series: [
                XYSeries(name: "observed",
                         points: filled.map { XYPoint(x: $0.meanPredicted ?? 0, y: $0.observed ?? 0,
                                                      label: "n = \($0.n)") }),
                XYSeries(name: "perfect calibration", xy: [(0, 0), (1, 1)]),
            ], options: GameFormat.unitSquare(
                title: "Calibration (cross-validated)",
                description: "Observed share with a diagnosis against the mean predicted probability, per bin",
                xLabel: "mean predicted probability", yLabel: "observed share"))
            let coefficientRows = zip(result.features, result.model.coefficients).map { feature, coefficient in
                GameCohortModel.Coefficient(label: MeasureCatalog.label(feature),
                                            methods: GameMethodsPage.link(feature),
                                            coefficient: GameFormat.num(coefficient, 3))
            }
            let tripod = result.tripod, atThreshold = tripod.atThreshold
            func rate(_ x: Double?, _ num: Int, _ den: Int) -> String {
                x.map { "\(GameFormat.percent($0)) (\(num) of \(den))" } ?? "–"
            }
            model.tripod = GameCohortModel.Tripod(
                count: tripod.n, slope: GameFormat.num(tripod.calibrationSlope, 3),
                intercept: GameFormat.num(tripod.calibrationIntercept, 3),
                calibrationInTheLarge: GameFormat.num(tripod.calibrationInTheLarge, 3),
                threshold: GameFormat.percent(atThreshold.threshold),
                sensitivity: rate(atThreshold.sensitivity, atThreshold.tp, atThreshold.tp + atThreshold.fn),
                specificity: rate(atThreshold.specificity, atThreshold.tn, atThreshold.tn + atThreshold.fp),
                ppv: rate(atThreshold.ppv, atThreshold.tp, atThreshold.tp + atThreshold.fp), npv: rate(atThreshold.npv,
                        atThreshold.tn, atThreshold.tn + atThreshold.fn),
                apparent: GameFormat.num(tripod.apparentAUC, 3), optimism: GameFormat.num(tripod.optimism, 3),
                corrected: GameFormat.num(tripod.optimismCorrectedAUC, 3), replicates: tripod.bootstrapReplicates,
                prevalence: GameFormat.percent(Double(result.nPositive) / Double(max(1, result.nTrain))))
            model.card = GameCohortModel.ModelCard(
                nTrain: result.nTrain, nPositive: result.nPositive, folds: result.folds,
                auc: GameFormat.num(result.cvAUC, 3), aucLow: GameFormat.num(result.cvAUCLow, 3),
                aucHigh: GameFormat.num(result.cvAUCHigh, 3), trainAUC: GameFormat.num(result.trainAUC, 3),
                brier: GameFormat.num(result.brier, 3), intercept: GameFormat.num(result.model.intercept, 3),
                coefficients: coefficientRows, roc: roc, calibration: calibration,
                bins: bins.indices.map { index in
                    let bin = bins[index]
                    return GameCohortModel.Bin(range: "\(GameFormat.num(bin.low, 1))–\(GameFormat.num(bin.high, 1))",
                                               count: binText[index], predicted: GameFormat.num(bin.meanPredicted, 2),
                                               observed: GameFormat.num(bin.observed, 2))
                })
            files.append(OutputFile(path: "game/calibration.csv",
                                    data: GameFormat.csv(["bin_low", "bin_high", "n", "mean_predicted", "observed"],
                bins.indices.map { i in [CSVWriter.number(bins[i].low), CSVWriter.number(bins[i].high),
                                         .text(binText[i]),
                                         CSVWriter.number(bins[i].meanPredicted),
                                         CSVWriter.number(bins[i].observed)] })))
            files.append(OutputFile(path: "game/roc.csv", data: GameFormat.csv(["threshold", "fpr", "tpr"],
                result.roc.map { [CSVWriter.number($0.threshold), CSVWriter.number($0.fpr),
                                  CSVWriter.number($0.tpr)] })))
            if let j = try? GameFormat.json(result.roc) { files.append(OutputFile(path: "game/roc.json", data: j)) }
            files.append(OutputFile(path: "game/model-coefficients.csv", data: GameFormat.csv(
                ["term", "coefficient_standardised", "feature_mean", "feature_sd"],
                [[.text("(intercept)"), CSVWriter.number(result.model.intercept), .empty, .empty]]
                    + result.features.indices.map { [.text(result.features[$0]),
                                                     CSVWriter.number(result.model.coefficients[$0]),
                                                     CSVWriter.number(result.standardizer.means[$0]),
                                                     CSVWriter.number(result.standardizer.sds[$0])] })))
            struct ModelJSON: Encodable {
                var features: [String]; var C: Double; var intercept: Double; var coefficients: [Double]
                var standardizer: Standardizer; var nTrain: Int; var nPositive: Int; var folds: Int
                var cvAUC: Double?; var cvAUCLow: Double?; var cvAUCHigh: Double?; var cvAUCSE: Double?
                var trainAUC: Double?; var brier: Double?; var options: AnalysisOptions; var tripod: TripodReport
            }
            if let j = try? GameFormat.json(ModelJSON(features: result.features, C: result.C,
                                                      intercept: result.model.intercept,
                                                      coefficients: result.model.coefficients,
                                                      standardizer: result.standardizer,
                                                      nTrain: result.nTrain, nPositive: result.nPositive,
                                                      folds: result.folds, cvAUC: result.cvAUC,
                                                      cvAUCLow: result.cvAUCLow, cvAUCHigh: result.cvAUCHigh,
                                                      cvAUCSE: result.cvAUCSE, trainAUC: result.trainAUC,
                                                      brier: result.brier, options: analysis.options,
                                                      tripod: result.tripod)) {
                files.append(OutputFile(path: "game/model.json", data: j))
            }
        }
        return (Page(path: "game/cohort/index.html", title: "Cohort summary", template: "game/cohort", model: model,
                     styles: ["assets/game/game.css"]), files)
    }

    /// The analysis settings both cohort pages quote.
    static func options(_ options: AnalysisOptions) -> GameOptionsModel {
        GameOptionsModel(penalty: GameFormat.num(options.C, 3), minEncounters: options.minimumEncounters,
                         suggestEncounters: options.suggestionEncounters, suggestSessions: options.suggestionSessions,
                         suggestP: GameFormat.percent(options.suggestionProbability),
                         suggestLow: GameFormat.percent(options.suggestionLowerBound))
    }

    /// "mean ± SD (n)" or "<5" / "suppressed" when the group may not be shown.
    static func stats(_ g: GroupStats, _ measure: String) -> String {
        g.n < 0
            ? "not shown (small group)"
            : "\(GameFormat.value(g.mean, measure: measure)) ± \(GameFormat.value(g.sd, measure: measure)) (n \(g.n))"
    }

    static func nCell(_ n: Int) -> CSVWriter.Cell { n < 0 ? .text("suppressed") : CSVWriter.number(n) }

    /// Player-level side outputs: only for a private site.
    static func playerFiles(_ analysis: CohortAnalysis) -> [OutputFile] {
        var files: [OutputFile] = []
        let features = MeasureCatalog.normed.map(\.name)
        files.append(OutputFile(path: "game/players.csv", data: GameFormat.csv(
            ["player", "group", "age_band", "gender", "sessions", "obstacles", "best_score"] + features
                + ["probability", "probability_low", "probability_high", "suggestion"],
            analysis.players.map { p in
                [.text(p.id), .text(p.group.rawValue), .text(p.ageBand ?? ""), .text(p.survey?.gender ?? ""),
                 CSVWriter.number(p.measures.sessions), CSVWriter.number(p.measures.encounters),
                 CSVWriter.number(p.measures.bestScore)]
                    + features.map { CSVWriter.number(p.measures.value($0)) }
                    + [CSVWriter.number(p.likelihood.probability), CSVWriter.number(p.likelihood.low),
                       CSVWriter.number(p.likelihood.high), .text(p.likelihood.suggest ? "yes" : "no")]
            })))
        struct PlayerRow: Encodable {
            var id: String; var group: Group; var ageBand: String?; var measures: [String: Double]
            var likelihood: Likelihood
        }
        if let j = try? GameFormat.json(analysis.players.map { p in
            PlayerRow(id: p.id, group: p.group, ageBand: p.ageBand,
                      measures: Dictionary(uniqueKeysWithValues: features.compactMap { f in
                          p.measures.value(f).map { (f, $0) }
                      }),
                      likelihood: p.likelihood)
        }) { files.append(OutputFile(path: "game/players.json", data: j)) }
        return files
    }
}
#endif
