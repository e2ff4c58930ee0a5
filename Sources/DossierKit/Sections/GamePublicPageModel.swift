// Compiled only with the game domain.
#if DOMAIN_GAME
import Render

/// What `game/cohort-public` shows (the public, differentially private cohort page),
/// built by ``GamePublicPage/build(_:release:simulated:)`` from released numbers only.
struct GamePublicPageModel: TemplateRecord {
    var players: String
    var bandTable, genderTable: GameCountTable
    var simulated: Bool
    var groups: [GameGroupRow]
    var comparisons: [GameComparisonBlock]
    var tau: [TauRow]
    var wording: String
    var privacy: Privacy
    var minimumClass: Int
    var options: GameOptionsModel
    /// The public model's card, when both noisy class totals are large enough.
    var card: ModelCard?

    static let fields = TemplateFields<Self>([
        .text("players") { $0.players },
        .object("bandTable", GameCountTable.self) { $0.bandTable },
        .object("genderTable", GameCountTable.self) { $0.genderTable },
        .bool("simulated") { $0.simulated },
        .list("groups", GameGroupRow.self) { $0.groups },
        .list("comparisons", GameComparisonBlock.self) { $0.comparisons },
        .list("tau", TauRow.self) { $0.tau },
        .bool("hasTau") { !$0.tau.isEmpty },
        .text("wording") { $0.wording },
        .object("privacy", Privacy.self) { $0.privacy },
        .bool("hasModel") { $0.card != nil },
        .int("minimumClass") { $0.minimumClass },
        .object("options", GameOptionsModel.self) { $0.options },
        .maybeObject("model", ModelCard.self) { $0.card },
    ])

    /// `tau[]`: a shown group's τ quartiles (ms).
    struct TauRow: TemplateRecord {
        var group, lowerQuartile, median, upperQuartile: String

        static let fields = TemplateFields<Self>([
            .text("group") { $0.group },
            .text("q1") { $0.lowerQuartile },
            .text("median") { $0.median },
            .text("q3") { $0.upperQuartile },
        ])
    }

    /// `privacy`: the release's budget, its split and the noise each count carries.
    struct Privacy: TemplateRecord {
        var epsilon, delta, release, lifetime: String
        var spends: [Spend]
        var minimum: Int
        var perCell: String
        var cellsPerGroup: Int
        var perGroup, perAll: String

        static let fields = TemplateFields<Self>([
            .text("epsilon") { $0.epsilon },
            .text("delta") { $0.delta },
            .text("release") { $0.release },
            .text("lifetime") { $0.lifetime },
            .list("spends", Spend.self) { $0.spends },
            .int("minimum") { $0.minimum },
            .text("perCell") { $0.perCell },
            .int("cellsPerGroup") { $0.cellsPerGroup },
            .text("perGroup") { $0.perGroup },
            .text("perAll") { $0.perAll },
        ])
    }

    /// `privacy.spends[]`: a part of the budget and what it protects.
    struct Spend: TemplateRecord {
        var label, epsilon, what: String

        static let fields = TemplateFields<Self>([
            .text("label") { $0.label },
            .text("epsilon") { $0.epsilon },
            .text("what") { $0.what },
        ])
    }

    /// `model`: the public model's card.
    struct ModelCard: TemplateRecord {
        var nPositive, nNegative: Int
        /// The features and their ranges, as one sentence part.
        var features: String
        var lambda, auc, aucLow, aucHigh, brier, roc, calibration: String
        var bins: [Bin]

        static let fields = TemplateFields<Self>([
            .int("nPositive") { $0.nPositive },
            .int("nNegative") { $0.nNegative },
            .int("nTrain") { $0.nPositive + $0.nNegative },
            .text("features") { $0.features },
            .text("lambda") { $0.lambda },
            .text("auc") { $0.auc },
            .text("aucLow") { $0.aucLow },
            .text("aucHigh") { $0.aucHigh },
            .text("brier") { $0.brier },
            .text("roc") { $0.roc },
            .text("calibration") { $0.calibration },
            .list("bins", Bin.self) { $0.bins },
        ])
    }

    /// `model.bins[]`: a calibration bin of the noisy score histograms.
    struct Bin: TemplateRecord {
        var range, count, observed: String

        static let fields = TemplateFields<Self>([
            .text("range") { $0.range },
            .text("n") { $0.count },
            .text("observed") { $0.observed },
        ])
    }
}
#endif
