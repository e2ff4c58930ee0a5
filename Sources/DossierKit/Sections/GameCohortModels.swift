// Compiled only with the game domain (Package.swift excludes GameSection.swift otherwise).
#if DOMAIN_GAME
import Render

// The parts `game/cohort` (a site with exact, suppressed counts) and `game/cohort-public`
// (differentially private numbers) share, and the exact page's own model.

/// `groups[]`: a group and its size as shown.
struct GameGroupRow: TemplateRecord {
    var group, count: String

    static let fields = TemplateFields<Self>([
        .text("group") { $0.group },
        .text("n") { $0.count },
    ])
}

/// `bandTable`, `genderTable`: group sizes by age band or gender, then an "All players" row.
struct GameCountTable: TemplateRecord {
    var columns: [String]
    var rows: [Row]
    var totals: Row

    static let fields = TemplateFields<Self>([
        .texts("columns") { $0.columns },
        .list("rows", Row.self) { $0.rows },
        .object("totals", Row.self) { $0.totals },
    ])

    /// A row: its label, its cells and its total, as shown.
    struct Row: TemplateRecord {
        var label: String
        var cells: [String]
        var total: String

        static let fields = TemplateFields<Self>([
            .text("label") { $0.label },
            .texts("cells") { $0.cells },
            .text("total") { $0.total },
        ])
    }
}

/// `comparisons[]`: one pair of groups, a row per measure.
struct GameComparisonBlock: TemplateRecord {
    var groupA, groupB: String
    var rows: [Row]

    static let fields = TemplateFields<Self>([
        .text("title") { "\($0.groupA) vs \($0.groupB)" },
        .text("groupA") { $0.groupA },
        .text("groupB") { $0.groupB },
        .list("rows", Row.self) { $0.rows },
    ])

    /// A measure: each group's "mean ± SD (n)", Hedges' g and its interval. `methods`
    /// (the link to its definition) only on the exact page.
    struct Row: TemplateRecord {
        var label: String
        var methods: String?
        var statsA, statsB, hedgesG, interval: String

        static let fields = TemplateFields<Self>([
            .text("label") { $0.label },
            .maybeText("methods") { $0.methods },
            .text("a") { $0.statsA },
            .text("b") { $0.statsB },
            .text("g") { $0.hedgesG },
            .text("ci") { $0.interval },
        ])
    }
}

/// `options`: the analysis settings the suggestion rule and the model card quote.
struct GameOptionsModel: TemplateRecord {
    var penalty: String
    var minEncounters, suggestEncounters, suggestSessions: Int
    var suggestP, suggestLow: String

    static let fields = TemplateFields<Self>([
        .text("C") { $0.penalty },
        .int("minEncounters") { $0.minEncounters },
        .int("suggestEncounters") { $0.suggestEncounters },
        .int("suggestSessions") { $0.suggestSessions },
        .text("suggestP") { $0.suggestP },
        .text("suggestLow") { $0.suggestLow },
    ])
}

/// What `game/cohort` shows, built by ``GameCohortPage/build(_:simulated:)``.
struct GameCohortModel: TemplateRecord {
    var summary: Summary
    var groups: [GameGroupRow]
    var bandTable, genderTable: GameCountTable
    var simulated: Bool
    var comparisons: [GameComparisonBlock]
    /// The τ box plot (SVG).
    var box: String
    var players: String
    var wording: String
    /// Why no model was fitted ("" when one was).
    var unavailable: String
    var options: GameOptionsModel
    var card: ModelCard?
    var tripod: Tripod?

    static let fields = TemplateFields<Self>([
        .object("summary", Summary.self) { $0.summary },
        .list("groups", GameGroupRow.self) { $0.groups },
        .object("bandTable", GameCountTable.self) { $0.bandTable },
        .object("genderTable", GameCountTable.self) { $0.genderTable },
        .bool("simulated") { $0.simulated },
        .list("comparisons", GameComparisonBlock.self) { $0.comparisons },
        .text("box") { $0.box },
        .text("players") { $0.players },
        .text("wording") { $0.wording },
        .bool("hasModel") { $0.card != nil },
        .text("unavailable") { $0.unavailable },
        .object("options", GameOptionsModel.self) { $0.options },
        .maybeObject("model", ModelCard.self) { $0.card },
        .maybeObject("tripod", Tripod.self) { $0.tripod },
    ])

    /// `summary`: the measurement checks.
    struct Summary: TemplateRecord {
        var tauPlayers: Int
        var tauCensored, tauUncensored, tauShift: String
        var sessions, invalid, practicePlayers: Int
        var practice: String
        var blocks: [Block]

        static let fields = TemplateFields<Self>([
            .int("tauPlayers") { $0.tauPlayers },
            .text("tauCensored") { $0.tauCensored },
            .text("tauUncensored") { $0.tauUncensored },
            .text("tauShift") { $0.tauShift },
            .int("sessions") { $0.sessions },
            .int("invalid") { $0.invalid },
            .int("practicePlayers") { $0.practicePlayers },
            .text("practice") { $0.practice },
            .list("blocks", Block.self) { $0.blocks },
            .bool("hasBlocks") { !$0.blocks.isEmpty },
        ])
    }

    /// `summary.blocks[]`: obstacles 1–10, 11–20, … pooled over sessions.
    struct Block: TemplateRecord {
        var block, players: Int
        var reactionTime: String
        var obstacles: Int
        var omissions: String

        static let fields = TemplateFields<Self>([
            .int("block") { $0.block },
            .int("players") { $0.players },
            .text("rt") { $0.reactionTime },
            .int("obstacles") { $0.obstacles },
            .text("omissions") { $0.omissions },
        ])
    }

    /// `model`: the fitted model's card.
    struct ModelCard: TemplateRecord {
        var nTrain, nPositive, folds: Int
        var auc, aucLow, aucHigh, trainAUC, brier, intercept: String
        var coefficients: [Coefficient]
        var roc, calibration: String
        var bins: [Bin]

        static let fields = TemplateFields<Self>([
            .int("nTrain") { $0.nTrain },
            .int("nPositive") { $0.nPositive },
            .int("nNegative") { $0.nTrain - $0.nPositive },
            .int("folds") { $0.folds },
            .text("auc") { $0.auc },
            .text("aucLow") { $0.aucLow },
            .text("aucHigh") { $0.aucHigh },
            .text("trainAUC") { $0.trainAUC },
            .text("brier") { $0.brier },
            .text("intercept") { $0.intercept },
            .list("coefficients", Coefficient.self) { $0.coefficients },
            .text("roc") { $0.roc },
            .text("calibration") { $0.calibration },
            .list("bins", Bin.self) { $0.bins },
        ])
    }

    /// `model.coefficients[]`: a feature and its coefficient per SD.
    struct Coefficient: TemplateRecord {
        var label, methods, coefficient: String

        static let fields = TemplateFields<Self>([
            .text("label") { $0.label },
            .text("methods") { $0.methods },
            .text("coef") { $0.coefficient },
        ])
    }

    /// `model.bins[]`: a calibration bin.
    struct Bin: TemplateRecord {
        var range, count, predicted, observed: String

        static let fields = TemplateFields<Self>([
            .text("range") { $0.range },
            .text("n") { $0.count },
            .text("predicted") { $0.predicted },
            .text("observed") { $0.observed },
        ])
    }

    /// `tripod`: the validation figures.
    struct Tripod: TemplateRecord {
        var count: Int
        var slope, intercept, calibrationInTheLarge, threshold: String
        var sensitivity, specificity, ppv, npv, apparent, optimism, corrected: String
        var replicates: Int
        var prevalence: String

        static let fields = TemplateFields<Self>([
            .int("n") { $0.count },
            .text("slope") { $0.slope },
            .text("intercept") { $0.intercept },
            .text("citl") { $0.calibrationInTheLarge },
            .text("threshold") { $0.threshold },
            .text("sensitivity") { $0.sensitivity },
            .text("specificity") { $0.specificity },
            .text("ppv") { $0.ppv },
            .text("npv") { $0.npv },
            .text("apparent") { $0.apparent },
            .text("optimism") { $0.optimism },
            .text("corrected") { $0.corrected },
            .int("replicates") { $0.replicates },
            .text("prevalence") { $0.prevalence },
        ])
    }
}
#endif
