// Compiled only with the game domain (Package.swift excludes GameSection.swift otherwise).
#if DOMAIN_GAME
import GameAnalytics
import Render

/// What `game/index` shows (`game/index.html`), built by ``GameSection`` from the cohort
/// unit's record.
struct GameIndexModel: TemplateRecord {
    var players: [Player]
    var count: Int
    /// The model's AUC as shown, or "not available".
    var auc: String
    var privateSite: Bool
    /// Players' encrypted results are published.
    var results: Bool
    var hasKit: Bool
    var awaitingFirstGame: Bool

    static let fields = TemplateFields<Self>([
        .list("players", Player.self) { $0.players },
        .int("count") { $0.count },
        .text("auc") { $0.auc },
        .bool("hasPlayers") { !$0.players.isEmpty },
        .bool("privateSite") { $0.privateSite },
        .bool("results") { $0.results },
        .bool("hasKit") { $0.hasKit },
        .bool("awaitingFirstGame") { $0.awaitingFirstGame },
    ])

    /// `players[]` (private sites): a row of the players table.
    struct Player: TemplateRecord {
        var id, group: String
        var sessions: Int
        var score, probability: String
        var suggest: Bool

        static let fields = TemplateFields<Self>([
            .text("id") { $0.id },
            .text("group") { $0.group },
            .int("sessions") { $0.sessions },
            .text("score") { $0.score },
            .text("probability") { $0.probability },
            .bool("suggest") { $0.suggest },
        ])
    }
}

/// `game/awaiting`: the cohort page before the first game; it reads only `root`.
struct GameAwaitingModel: TemplateRecord {
    static let fields = TemplateFields<Self>([])
}

/// What `game/methods` shows (`game/methods.html`), built by ``GameMethodsPage/page()``.
struct GameMethodsModel: TemplateRecord {
    var measures: [Measure]
    /// The response window and the anticipatory limit (ms).
    var window, anticipatory: Int
    var features: [Feature]

    static let fields = TemplateFields<Self>([
        .list("measures", Measure.self) { $0.measures },
        .int("window") { $0.window },
        .int("anticipatory") { $0.anticipatory },
        .list("features", Feature.self) { $0.features },
    ])

    /// `measures[]`: a measure's anchor, name, unit, definition and ADHD direction.
    struct Measure: TemplateRecord {
        var id, label, unit, definition, direction: String

        static let fields = TemplateFields<Self>([
            .text("id") { $0.id },
            .text("label") { $0.label },
            .text("unit") { $0.unit },
            .bool("hasUnit") { !$0.unit.isEmpty },
            .text("definition") { $0.definition },
            .text("direction") { $0.direction },
        ])
    }

    /// `features[]`: a model feature, linked to its measure.
    struct Feature: TemplateRecord {
        var id, label: String
        var last: Bool

        static let fields = TemplateFields<Self>([
            .text("id") { $0.id },
            .text("label") { $0.label },
            .bool("last") { $0.last },
        ])
    }
}
#endif
