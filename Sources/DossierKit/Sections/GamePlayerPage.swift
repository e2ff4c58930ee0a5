// Compiled only with the game domain (Package.swift excludes GameSection.swift otherwise).
#if DOMAIN_GAME
import Foundation
import GameAnalytics
import Render

// MARK: - Player page

enum GamePlayerPage {
    static let wording = "This is a screening signal from a game, not a diagnosis. Only a qualified professional can assess ADHD."

    static func build(_ p: PlayerResult, analysis: CohortAnalysis, simulated: Bool) -> (page: Page, files: [OutputFile]) {
        let m = p.measures
        let dir = "game/players/\(p.id)"
        // Measures vs norms
        var normRows: [[String: Any]] = []
        var normCSV: [[CSVWriter.Cell]] = []
        let entries = p.norms.isEmpty
            ? MeasureCatalog.normed.map { NormEntry(measure: $0.name, value: m.value($0.name), z: nil, percentile: nil,
                                                    reference: "no norms (survey incomplete)", referenceN: 0, small: false, fallback: false) }
            : p.norms
        for n in entries {
            normRows.append(["label": MeasureCatalog.label(n.measure), "methods": GameMethodsPage.link(n.measure), "value": GameFormat.value(n.value, measure: n.measure),
                             "z": GameFormat.num(n.z, 2), "percentile": GameFormat.num(n.percentile, 0),
                             "bar": GameFormat.percentileBar(n.percentile), "reference": n.reference,
                             "n": n.referenceN, "small": n.small, "fallback": n.fallback])
            normCSV.append([.text(n.measure), CSVWriter.number(n.value), CSVWriter.number(n.z), CSVWriter.number(n.percentile),
                            .text(n.reference), CSVWriter.number(n.referenceN), .text(n.small ? "yes" : "no"), .text(n.fallback ? "yes" : "no")])
        }
        // Histogram with the fitted curve (in count units: pdf × n × bin width)
        var histogram = ""
        if let bins = HistogramBins(values: m.hitRTs), m.hitRTs.count >= 2 {
            let k = bins.counts.count
            let width = bins.edges[1] - bins.edges[0]
            var overlay: XYSeries?
            if let fit = m.exGaussian {
                let lo = bins.edges.first!, hi = bins.edges.last!
                let pts = (0...80).map { i -> (Double, Double) in
                    let x = lo + (hi - lo) * Double(i) / 80
                    return (x, ExGaussian.pdf(x, fit.params) * Double(m.hitRTs.count) * width)
                }
                overlay = XYSeries(name: "fitted ex-Gaussian", xy: pts)
            }
            histogram = Charts.histogram(values: m.hitRTs, options: ChartOptions(
                title: "Hit reaction times", description: "Histogram of \(m.hitRTs.count) hit reaction times with the fitted ex-Gaussian density",
                xLabel: "reaction time (ms)", yLabel: "hits", dataSummary: false), bins: k, overlay: overlay)
        }
        // Trends across sessions
        var trend = ""
        if m.perSession.count >= 2 {
            trend = Charts.line(series: [
                XYSeries(name: "hit RT mean (ms)", xy: m.perSession.compactMap { s in s.hitRTMean.map { (Double(s.index), $0) } }),
                XYSeries(name: "hit RT SD (ms)", xy: m.perSession.compactMap { s in s.hitRTSD.map { (Double(s.index), $0) } }),
            ], options: ChartOptions(title: "Reaction time across sessions", description: "Mean and SD of hit reaction times per session",
                                     xLabel: "session", yLabel: "ms", dataSummary: false))
        }
        let sessions: [[String: Any]] = m.perSession.map {
            ["index": $0.index, "minutes": GameFormat.num(Double($0.durationMs) / 60000, 1), "obstacles": $0.obstacles,
             "hits": $0.hits, "omissions": $0.omissions, "commissions": $0.commissions,
             "rt": GameFormat.num($0.hitRTMean, 0), "sd": GameFormat.num($0.hitRTSD, 0), "score": $0.score]
        }
        let sessionCSV: [[CSVWriter.Cell]] = m.perSession.map {
            [CSVWriter.number($0.index), CSVWriter.number($0.durationMs), CSVWriter.number($0.obstacles), CSVWriter.number($0.hits),
             CSVWriter.number($0.omissions), CSVWriter.number($0.commissions), CSVWriter.number($0.hitRTMean),
             CSVWriter.number($0.hitRTSD), CSVWriter.number($0.score)]
        }
        let lk = p.likelihood
        var model: [String: Any] = [
            "id": p.id, "group": p.group.label, "ageBand": p.ageBand ?? "–", "gender": p.survey?.gender ?? "–",
            "bestScore": m.bestScore.map(String.init) ?? "–", "lastScore": m.lastScore.map(String.init) ?? "–",
            "meanScore": GameFormat.num(m.meanScore, 0), "sessions": m.sessions,
            "playedMinutes": GameFormat.num(Double(m.playedMs) / 60000, 1),
            "meanSessionMinutes": GameFormat.num(m.meanSessionMs.map { $0 / 60000 }, 1),
            "encounters": m.encounters, "jumps": m.jumps, "collisions": m.collisions, "hits": m.hits,
            "omissions": m.omissions, "commissions": m.commissions, "anticipatory": m.anticipatory,
            "reactionTime": GameFormat.num(m.hitRTMean, 0), "norms": normRows, "histogram": histogram,
            "hasHistogram": !histogram.isEmpty, "trend": trend, "hasTrend": !trend.isEmpty, "sessionRows": sessions,
            "wording": wording, "suggest": lk.suggest, "reason": lk.reason,
            "hasProbability": lk.probability != nil, "probability": GameFormat.percent(lk.probability),
            "low": GameFormat.percent(lk.low), "high": GameFormat.percent(lk.high), "unavailable": lk.unavailable ?? "",
            "medicated": p.group == .medicated, "outOfFold": lk.outOfFold, "simulated": simulated,
        ]
        if let fit = m.exGaussian {
            model["fit"] = ["mu": GameFormat.num(fit.params.mu, 0), "sigma": GameFormat.num(fit.params.sigma, 0),
                            "tau": GameFormat.num(fit.params.tau, 0), "n": fit.n,
                            "flags": fit.flags.joined(separator: ", "), "hasFlags": !fit.flags.isEmpty] as [String: Any]
        }
        let normHeader = ["measure", "value", "z", "percentile", "reference_group", "reference_n", "small_group", "fallback"]
        let sessionHeader = ["session", "duration_ms", "obstacles", "hits", "omissions", "commissions", "hit_rt_mean_ms", "hit_rt_sd_ms", "score"]
        struct PlayerJSON: Encodable {
            var id: String; var group: Group; var ageBand: String?; var survey: Survey?
            var measures: PlayerMeasures; var norms: [NormEntry]; var likelihood: Likelihood
        }
        var files = [
            OutputFile(path: "\(dir)/norms.csv", data: GameFormat.csv(normHeader, normCSV)),
            OutputFile(path: "\(dir)/sessions.csv", data: GameFormat.csv(sessionHeader, sessionCSV)),
        ]
        if let j = try? GameFormat.json(PlayerJSON(id: p.id, group: p.group, ageBand: p.ageBand, survey: p.survey,
                                                   measures: m, norms: p.norms, likelihood: lk)) {
            files.append(OutputFile(path: "\(dir)/player.json", data: j))
        }
        return (Page(path: "\(dir)/index.html", title: "Player \(p.id)", template: "game/player", model: model), files)
    }
}
#endif
