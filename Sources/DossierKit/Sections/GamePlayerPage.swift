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

// MARK: - Player page

enum GamePlayerPage {
    static let wording = "This is a screening signal from a game, not a diagnosis. "
        + "Only a qualified professional can assess ADHD."

    static func build(_ player: PlayerResult, analysis: CohortAnalysis,
                      simulated: Bool) -> (page: Page, files: [OutputFile]) {
        let measures = player.measures
        let dir = "game/players/\(player.id)"
        // Measures vs norms
        var normRows: [GamePlayerModel.NormRow] = []
        var normCSV: [[CSVWriter.Cell]] = []
        let entries = player.norms.isEmpty
            ? MeasureCatalog.normed.map { NormEntry(measure: $0.name, value: measures.value($0.name), z: nil,
                                                    percentile: nil, reference: "no norms (survey incomplete)",
                                                    referenceN: 0, small: false, fallback: false) }
            : player.norms
        for norm in entries {
            normRows.append(.init(label: MeasureCatalog.label(norm.measure),
                                  methods: GameMethodsPage.link(norm.measure),
                                  value: GameFormat.value(norm.value, measure: norm.measure),
                                  z: GameFormat.num(norm.z, 2), percentile: GameFormat.num(norm.percentile, 0),
                                  bar: GameFormat.percentileBar(norm.percentile), reference: norm.reference,
                                  referenceCount: norm.referenceN, small: norm.small, fallback: norm.fallback))
            normCSV.append([.text(norm.measure), CSVWriter.number(norm.value), CSVWriter.number(norm.z),
                            CSVWriter.number(norm.percentile),
                            .text(norm.reference), CSVWriter.number(norm.referenceN),
                            .text(norm.small ? "yes" : "no"), .text(norm.fallback ? "yes" : "no")])
        }
        // Histogram with the fitted curve (in count units: pdf × n × bin width)
        var histogram = ""
        if let bins = HistogramBins(values: measures.hitRTs), measures.hitRTs.count >= 2 {
            let binCount = bins.counts.count
            let width = bins.edges[1] - bins.edges[0]
            var overlay: XYSeries?
            if let fit = measures.exGaussian {
                let lo = bins.edges.first!, hi = bins.edges.last!
                let pts = (0...80).map { i -> (Double, Double) in
                    let x = lo + (hi - lo) * Double(i) / 80
                    return (x, ExGaussian.pdf(x, fit.params) * Double(measures.hitRTs.count) * width)
                }
                overlay = XYSeries(name: "fitted ex-Gaussian", xy: pts)
            }
            histogram = Charts.histogram(values: measures.hitRTs, options: ChartOptions(
                title: "Hit reaction times",
                description: "Histogram of \(measures.hitRTs.count) hit reaction times "
                    + "with the fitted ex-Gaussian density",
                xLabel: "reaction time (ms)", yLabel: "hits", dataSummary: false), bins: binCount, overlay: overlay)
        }
        // Trends across sessions
        var trend = ""
        if measures.perSession.count >= 2 {
            trend = Charts.line(series: [
                XYSeries(name: "hit RT mean (ms)",
                         xy: measures.perSession.compactMap { s in s.hitRTMean.map { (Double(s.index), $0) } }),
                XYSeries(name: "hit RT SD (ms)",
                         xy: measures.perSession.compactMap { s in s.hitRTSD.map { (Double(s.index), $0) } }),
            ], options: ChartOptions(title: "Reaction time across sessions",
                                     description: "Mean and SD of hit reaction times per session",
                                     xLabel: "session", yLabel: "ms", dataSummary: false))
        }
        let sessions = measures.perSession.map {
            GamePlayerModel.SessionRow(index: $0.index, minutes: GameFormat.num(Double($0.durationMs) / 60000, 1),
                                       obstacles: $0.obstacles, hits: $0.hits, omissions: $0.omissions,
                                       commissions: $0.commissions, reactionTimeMean: GameFormat.num($0.hitRTMean, 0),
                                       reactionTimeSD: GameFormat.num($0.hitRTSD, 0), score: $0.score)
        }
        let sessionCSV: [[CSVWriter.Cell]] = measures.perSession.map {
            [CSVWriter.number($0.index), CSVWriter.number($0.durationMs), CSVWriter.number($0.obstacles),
             CSVWriter.number($0.hits),
             CSVWriter.number($0.omissions), CSVWriter.number($0.commissions), CSVWriter.number($0.hitRTMean),
             CSVWriter.number($0.hitRTSD), CSVWriter.number($0.score)]
        }
        let likelihood = player.likelihood
        let model = GamePlayerModel(
            id: player.id, group: player.group.label, ageBand: player.ageBand ?? "–", gender: player.survey?.gender
                ?? "–",
            bestScore: measures.bestScore.map(String.init) ?? "–", lastScore: measures.lastScore.map(String.init)
                ?? "–",
            meanScore: GameFormat.num(measures.meanScore, 0), sessions: measures.sessions,
            playedMinutes: GameFormat.num(Double(measures.playedMs) / 60000, 1),
            meanSessionMinutes: GameFormat.num(measures.meanSessionMs.map { $0 / 60000 }, 1),
            encounters: measures.encounters, hits: measures.hits, omissions: measures.omissions,
            collisions: measures.collisions,
            commissions: measures.commissions, anticipatory: measures.anticipatory,
            reactionTime: GameFormat.num(measures.hitRTMean, 0), norms: normRows, histogram: histogram, trend: trend,
            sessionRows: sessions, wording: wording, suggest: likelihood.suggest, reason: likelihood.reason,
            hasProbability: likelihood.probability != nil, probability: GameFormat.percent(likelihood.probability),
            low: GameFormat.percent(likelihood.low), high: GameFormat.percent(likelihood.high),
            unavailable: likelihood.unavailable ?? "", outOfFold: likelihood.outOfFold, simulated: simulated,
            fit: measures.exGaussian.map { fit in
                GamePlayerModel.Fit(mu: GameFormat.num(fit.params.mu, 0), sigma: GameFormat.num(fit.params.sigma, 0),
                                    tau: GameFormat.num(fit.params.tau, 0), count: fit.n, flags: fit.flags)
            })
        let normHeader = ["measure", "value", "z", "percentile", "reference_group", "reference_n", "small_group",
                          "fallback"]
        let sessionHeader = ["session", "duration_ms", "obstacles", "hits", "omissions", "commissions",
                             "hit_rt_mean_ms", "hit_rt_sd_ms", "score"]
        struct PlayerJSON: Encodable {
            var id: String; var group: Group; var ageBand: String?; var survey: Survey?
            var measures: PlayerMeasures; var norms: [NormEntry]; var likelihood: Likelihood
        }
        var files = [
            OutputFile(path: "\(dir)/norms.csv", data: GameFormat.csv(normHeader, normCSV)),
            OutputFile(path: "\(dir)/sessions.csv", data: GameFormat.csv(sessionHeader, sessionCSV)),
        ]
        if let j = try? GameFormat.json(PlayerJSON(id: player.id, group: player.group, ageBand: player.ageBand,
                                                   survey: player.survey,
                                                   measures: measures, norms: player.norms, likelihood: likelihood)) {
            files.append(OutputFile(path: "\(dir)/player.json", data: j))
        }
        return (Page(path: "\(dir)/index.html", title: "Player \(player.id)", template: "game/player", model: model),
                files)
    }
}
#endif
