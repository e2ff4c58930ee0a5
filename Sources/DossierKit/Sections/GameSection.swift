import Foundation
import GameAnalytics
import Render

/// The `game` section: RocketMouse telemetry → per-player pages and a cohort summary.
///
/// ```yaml
/// game:
///   telemetry: data/game/cohort.jsonl   # JSON Lines files, folders or globs
///   # database: data/game/study.sqlite  # …or the study server's SQLite database
///   C: 1.0                               # inverse L2 penalty (scikit-learn's C)
///   folds: 5                             # stratified cross-validation folds
/// ```
///
/// **One unit for the whole cohort.** Norms, the model and every player's likelihood
/// depend on every player, so a change to any input changes every page; splitting into
/// per-player units would only pretend to be incremental. The single unit is skipped when
/// no input byte and no option changed (docs/game-measures.md, "Incremental builds").
public struct GameSection: Section {
    public static let key = "game"
    public static let title = "Game analytics"

    let files: [URL]
    let database: URL?
    let options: AnalysisOptions
    let project: Project

    public init(config: SectionConfig, project: Project) throws {
        self.project = project
        let db = try config.path("database", required: false)
        let hasTelemetry = config.value("telemetry") != nil
        if db != nil && hasTelemetry { throw config.error("database", "give either telemetry or database, not both") }
        if db == nil && !hasTelemetry { throw config.error(nil, "missing required key 'telemetry' (JSON Lines files) or 'database'") }
        files = hasTelemetry ? try config.paths("telemetry", extensions: ["jsonl"]) : []
        database = db
        var o = AnalysisOptions()
        if let c = try config.double("C") {
            guard c > 0, c.isFinite else { throw config.error("C", "must be a positive number") }
            o.C = c
        }
        o.folds = try config.int("folds", default: 5, range: 2...20) ?? 5
        options = o
    }

    public func units() throws -> [SectionUnit] {
        [SectionUnit(id: "cohort", inputs: database.map { [$0] } ?? files,
                     salt: "C=\(options.C);folds=\(options.folds);v1")]
    }

    func readCohort() throws -> Cohort {
        do {
            if let database { return try StudyDatabase(path: database.path, create: false).readCohort() }
            return try TelemetryJSONL.read(files: files, displayName: { project.display($0) })
        } catch {
            throw DossierError(file: error.file, line: error.line, error.message)
        }
    }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult {
        let cohort = try readCohort()
        let analysis = CohortAnalyzer.analyze(cohort, options: options)
        var pages: [Page] = []
        var files: [OutputFile] = []
        for p in analysis.players {
            let r = GamePlayerPage.build(p, analysis: analysis)
            pages.append(r.page)
            files += r.files
        }
        let c = GameCohortPage.build(analysis)
        pages.append(c.page)
        files += c.files
        let warnings = analysis.warnings.map {
            Diagnostic.warning(file: database.map(project.display) ?? self.files.first.map(project.display), $0)
        }
        let record = GameRecord(players: analysis.players.map {
            GameRecord.Row(id: $0.id, group: $0.group.label, sessions: $0.measures.sessions,
                           bestScore: $0.measures.bestScore, probability: $0.likelihood.probability,
                           suggest: $0.likelihood.suggest)
        }, cvAUC: analysis.model?.cvAUC, cvAUCLow: analysis.model?.cvAUCLow, cvAUCHigh: analysis.model?.cvAUCHigh)
        return UnitResult(pages: pages, files: files, record: try JSONEncoder().encode(record), warnings: warnings)
    }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult {
        let rec = try records.first.map { try JSONDecoder().decode(GameRecord.self, from: $0.data) }
            ?? GameRecord(players: [], cvAUC: nil, cvAUCLow: nil, cvAUCHigh: nil)
        let rows: [[String: Any]] = rec.players.map {
            ["id": $0.id, "group": $0.group, "sessions": $0.sessions, "score": $0.bestScore.map(String.init) ?? "–",
             "probability": GameFormat.percent($0.probability), "suggest": $0.suggest]
        }
        let auc = rec.cvAUC.map { "\(GameFormat.num($0, 2)) (95 % CI \(GameFormat.num(rec.cvAUCLow, 2))–\(GameFormat.num(rec.cvAUCHigh, 2)))" }
        let model: [String: Any] = ["players": rows, "count": rec.players.count, "auc": auc ?? "not available",
                                    "hasPlayers": !rows.isEmpty]
        let page = Page(path: "game/index.html", title: Self.title, template: "game/index", model: model)
        let blurb = "Reaction-time telemetry of \(rec.players.count) RocketMouse players: CPT-like measures, norms and a screening model"
            + (auc.map { " (cross-validated AUC \($0))." } ?? ".")
        return UnitResult(pages: [page], blurb: blurb)
    }
}

/// What the cohort unit leaves for the section index.
struct GameRecord: Codable {
    struct Row: Codable {
        var id: String
        var group: String
        var sessions: Int
        var bestScore: Int?
        var probability: Double?
        var suggest: Bool
    }
    var players: [Row]
    var cvAUC: Double?
    var cvAUCLow: Double?
    var cvAUCHigh: Double?
}

// MARK: - Formatting

enum GameFormat {
    static func num(_ x: Double?, _ digits: Int = 1) -> String {
        guard let x, x.isFinite else { return "–" }
        let s = String(format: "%.\(digits)f", x)
        return s == "-0" || s.hasPrefix("-0.") && Double(s) == 0 ? String(s.dropFirst()) : s
    }
    static func percent(_ x: Double?) -> String { x.map { num($0 * 100, 0) + " %" } ?? "–" }

    /// A value in its unit: rates as %, ms as whole ms.
    static func value(_ x: Double?, measure: String) -> String {
        guard let x else { return "–" }
        switch measure {
        case "omissionRate", "anticipatoryRate": return num(x * 100, 1) + " %"
        case "hitRTCV", "dPrime": return num(x, 2)
        case "commissionRate": return num(x, 2) + " /min"
        case "blockSlope": return num(x, 1) + " ms/block"
        case "isiSlope": return num(x, 1) + " ms/s"
        default: return num(x, 0) + " ms"
        }
    }

    /// A small inline SVG bar: the percentile as a filled bar with a mark at the median.
    static func percentileBar(_ pct: Double?) -> String {
        guard let pct else { return "" }
        let w = max(0, min(100, pct))
        return "<svg class=\"pbar\" width=\"104\" height=\"12\" viewBox=\"0 0 104 12\" role=\"img\" aria-label=\"percentile \(num(pct, 0))\">"
            + "<title>percentile \(num(pct, 0))</title>"
            + "<rect x=\"2\" y=\"2\" width=\"100\" height=\"8\" fill=\"#e5e7eb\"/>"
            + "<rect x=\"2\" y=\"2\" width=\"\(num(w, 1))\" height=\"8\" fill=\"#4f6fb0\"/>"
            + "<line x1=\"52\" y1=\"0\" x2=\"52\" y2=\"12\" stroke=\"#111\" stroke-width=\"1\"/></svg>"
    }

    static func csv(_ header: [String], _ rows: [[CSVWriter.Cell]]) -> Data {
        var w = CSVWriter(header: header)
        for r in rows { w.append(r) }
        return w.data
    }

    static func json<T: Encodable>(_ v: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try e.encode(v)
    }
}

// MARK: - Player page

enum GamePlayerPage {
    static let wording = "This is a screening signal from a game, not a diagnosis. Only a qualified professional can assess ADHD."

    static func build(_ p: PlayerResult, analysis: CohortAnalysis) -> (page: Page, files: [OutputFile]) {
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
            normRows.append(["label": MeasureCatalog.label(n.measure), "value": GameFormat.value(n.value, measure: n.measure),
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
            "medicated": p.group == .medicated,
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

// MARK: - Cohort page

enum GameCohortPage {
    static func build(_ a: CohortAnalysis) -> (page: Page, files: [OutputFile]) {
        var files: [OutputFile] = []
        // Players table (side output only: the index lists players)
        let features = MeasureCatalog.normed.map(\.name)
        files.append(OutputFile(path: "game/players.csv", data: GameFormat.csv(
            ["player", "group", "age_band", "gender", "sessions", "obstacles", "best_score"] + features
                + ["probability", "probability_low", "probability_high", "suggestion"],
            a.players.map { p in
                [.text(p.id), .text(p.group.rawValue), .text(p.ageBand ?? ""), .text(p.survey?.gender ?? ""),
                 CSVWriter.number(p.measures.sessions), CSVWriter.number(p.measures.encounters), CSVWriter.number(p.measures.bestScore)]
                    + features.map { CSVWriter.number(p.measures.value($0)) }
                    + [CSVWriter.number(p.likelihood.probability), CSVWriter.number(p.likelihood.low),
                       CSVWriter.number(p.likelihood.high), .text(p.likelihood.suggest ? "yes" : "no")]
            })))
        struct PlayerRow: Encodable { var id: String; var group: Group; var ageBand: String?; var measures: [String: Double]; var likelihood: Likelihood }
        if let j = try? GameFormat.json(a.players.map { p in
            PlayerRow(id: p.id, group: p.group, ageBand: p.ageBand,
                      measures: Dictionary(uniqueKeysWithValues: features.compactMap { f in p.measures.value(f).map { (f, $0) } }),
                      likelihood: p.likelihood)
        }) { files.append(OutputFile(path: "game/players.json", data: j)) }

        // Group counts
        let groupRows: [[String: Any]] = Group.allCases.map { g in
            ["group": g.label, "n": a.players.filter { $0.group == g }.count]
        }
        files.append(OutputFile(path: "game/group-counts.csv", data: GameFormat.csv(["group", "age_band", "gender", "n"],
            a.groupCounts.map { [.text($0.group.rawValue), .text($0.ageBand), .text($0.gender), CSVWriter.number($0.n)] })))
        if let j = try? GameFormat.json(a.groupCounts) { files.append(OutputFile(path: "game/group-counts.json", data: j)) }
        let countRows: [[String: Any]] = a.groupCounts.map {
            ["group": $0.group.label, "ageBand": $0.ageBand, "gender": $0.gender, "n": $0.n, "small": $0.n < a.options.smallNormGroup]
        }

        // Comparisons
        var comparisonBlocks: [[String: Any]] = []
        for (ga, gb) in [(Group.adhd, Group.control), (.medicated, .control), (.medicated, .adhd)] {
            let rows: [[String: Any]] = a.comparisons.filter { $0.groupA == ga && $0.groupB == gb }.map { c in
                ["label": MeasureCatalog.label(c.measure),
                 "a": "\(GameFormat.value(c.a.mean, measure: c.measure)) ± \(GameFormat.value(c.a.sd, measure: c.measure)) (n \(c.a.n))",
                 "b": "\(GameFormat.value(c.b.mean, measure: c.measure)) ± \(GameFormat.value(c.b.sd, measure: c.measure)) (n \(c.b.n))",
                 "g": GameFormat.num(c.g, 2), "ci": c.g == nil ? "–" : "\(GameFormat.num(c.gLow, 2)) to \(GameFormat.num(c.gHigh, 2))"]
            }
            comparisonBlocks.append(["title": "\(ga.label) vs \(gb.label)", "groupA": ga.label, "groupB": gb.label, "rows": rows])
        }
        files.append(OutputFile(path: "game/comparisons.csv", data: GameFormat.csv(
            ["measure", "group_a", "group_b", "n_a", "mean_a", "sd_a", "n_b", "mean_b", "sd_b", "hedges_g", "g_low", "g_high"],
            a.comparisons.map { c in
                [.text(c.measure), .text(c.groupA.rawValue), .text(c.groupB.rawValue), CSVWriter.number(c.a.n), CSVWriter.number(c.a.mean),
                 CSVWriter.number(c.a.sd), CSVWriter.number(c.b.n), CSVWriter.number(c.b.mean), CSVWriter.number(c.b.sd),
                 CSVWriter.number(c.g), CSVWriter.number(c.gLow), CSVWriter.number(c.gHigh)]
            })))
        if let j = try? GameFormat.json(a.comparisons) { files.append(OutputFile(path: "game/comparisons.json", data: j)) }

        // τ and variability by group
        let present = Group.allCases.filter { g in a.players.contains { $0.group == g && $0.measures.exGaussian != nil } }
        let box = Charts.boxPlot(groups: present.map { g in
            (name: g.label, values: a.players.filter { $0.group == g }.compactMap { $0.measures.exGaussian?.params.tau })
        }, options: ChartOptions(title: "Ex-Gaussian τ by group", description: "Distribution of each player's fitted τ (ms) by group",
                                 yLabel: "τ (ms)", dataSummary: false))

        var model: [String: Any] = ["groups": groupRows, "counts": countRows, "comparisons": comparisonBlocks, "box": box,
                                    "players": a.players.count, "smallGroup": a.options.smallNormGroup,
                                    "wording": GamePlayerPage.wording, "hasModel": a.model != nil,
                                    "unavailable": a.modelUnavailable ?? "", "options": [
                                        "C": GameFormat.num(a.options.C, 3), "folds": a.options.folds,
                                        "minEncounters": a.options.minimumEncounters,
                                        "suggestEncounters": a.options.suggestionEncounters,
                                        "suggestSessions": a.options.suggestionSessions,
                                        "suggestP": GameFormat.percent(a.options.suggestionProbability),
                                        "suggestLow": GameFormat.percent(a.options.suggestionLowerBound)] as [String: Any]]
        if let r = a.model {
            let roc = Charts.line(series: [
                XYSeries(name: "model (out-of-fold)", xy: r.roc.map { ($0.fpr, $0.tpr) }),
                XYSeries(name: "chance", xy: [(0, 0), (1, 1)]),
            ], options: ChartOptions(title: "ROC curve (cross-validated)", description: "True against false positive rate of the out-of-fold probabilities",
                                     width: 420, height: 380, xLabel: "false positive rate", yLabel: "true positive rate",
                                     dataSummary: false, yMin: 0, yMax: 1, xMin: 0, xMax: 1))
            let filled = r.calibration.filter { $0.n > 0 }
            let calibration = Charts.line(series: [
                XYSeries(name: "observed", points: filled.map { XYPoint(x: $0.meanPredicted ?? 0, y: $0.observed ?? 0, label: "n = \($0.n)") }),
                XYSeries(name: "perfect calibration", xy: [(0, 0), (1, 1)]),
            ], options: ChartOptions(title: "Calibration (cross-validated)", description: "Observed share with a diagnosis against the mean predicted probability, per bin",
                                     width: 420, height: 380, xLabel: "mean predicted probability", yLabel: "observed share",
                                     dataSummary: false, yMin: 0, yMax: 1, xMin: 0, xMax: 1))
            let coefRows: [[String: Any]] = zip(r.features, r.model.coefficients).map {
                ["label": MeasureCatalog.label($0.0), "coef": GameFormat.num($0.1, 3)]
            }
            model["model"] = [
                "nTrain": r.nTrain, "nPositive": r.nPositive, "nNegative": r.nTrain - r.nPositive, "folds": r.folds,
                "auc": GameFormat.num(r.cvAUC, 3), "aucLow": GameFormat.num(r.cvAUCLow, 3), "aucHigh": GameFormat.num(r.cvAUCHigh, 3),
                "trainAUC": GameFormat.num(r.trainAUC, 3), "brier": GameFormat.num(r.brier, 3),
                "intercept": GameFormat.num(r.model.intercept, 3), "coefficients": coefRows, "roc": roc, "calibration": calibration,
                "bins": r.calibration.map { b -> [String: Any] in
                    ["range": "\(GameFormat.num(b.low, 1))–\(GameFormat.num(b.high, 1))", "n": b.n,
                     "predicted": GameFormat.num(b.meanPredicted, 2), "observed": GameFormat.num(b.observed, 2)]
                },
            ] as [String: Any]
            files.append(OutputFile(path: "game/calibration.csv", data: GameFormat.csv(["bin_low", "bin_high", "n", "mean_predicted", "observed"],
                r.calibration.map { [CSVWriter.number($0.low), CSVWriter.number($0.high), CSVWriter.number($0.n),
                                     CSVWriter.number($0.meanPredicted), CSVWriter.number($0.observed)] })))
            if let j = try? GameFormat.json(r.calibration) { files.append(OutputFile(path: "game/calibration.json", data: j)) }
            files.append(OutputFile(path: "game/roc.csv", data: GameFormat.csv(["threshold", "fpr", "tpr"],
                r.roc.map { [CSVWriter.number($0.threshold), CSVWriter.number($0.fpr), CSVWriter.number($0.tpr)] })))
            if let j = try? GameFormat.json(r.roc) { files.append(OutputFile(path: "game/roc.json", data: j)) }
            files.append(OutputFile(path: "game/model-coefficients.csv", data: GameFormat.csv(
                ["term", "coefficient_standardised", "feature_mean", "feature_sd"],
                [[.text("(intercept)"), CSVWriter.number(r.model.intercept), .empty, .empty]]
                    + r.features.indices.map { [.text(r.features[$0]), CSVWriter.number(r.model.coefficients[$0]),
                                                CSVWriter.number(r.standardizer.means[$0]), CSVWriter.number(r.standardizer.sds[$0])] })))
            struct ModelJSON: Encodable {
                var features: [String]; var C: Double; var intercept: Double; var coefficients: [Double]
                var standardizer: Standardizer; var nTrain: Int; var nPositive: Int; var folds: Int
                var cvAUC: Double?; var cvAUCLow: Double?; var cvAUCHigh: Double?; var cvAUCSE: Double?
                var trainAUC: Double?; var brier: Double?; var options: AnalysisOptions
            }
            if let j = try? GameFormat.json(ModelJSON(features: r.features, C: r.C, intercept: r.model.intercept,
                                                       coefficients: r.model.coefficients, standardizer: r.standardizer,
                                                       nTrain: r.nTrain, nPositive: r.nPositive, folds: r.folds, cvAUC: r.cvAUC,
                                                       cvAUCLow: r.cvAUCLow, cvAUCHigh: r.cvAUCHigh, cvAUCSE: r.cvAUCSE,
                                                       trainAUC: r.trainAUC, brier: r.brier, options: a.options)) {
                files.append(OutputFile(path: "game/model.json", data: j))
            }
        }
        return (Page(path: "game/cohort/index.html", title: "Cohort summary", template: "game/cohort", model: model), files)
    }
}
