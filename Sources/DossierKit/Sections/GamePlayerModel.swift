// Compiled only with the game domain (Package.swift excludes GameSection.swift otherwise).
#if DOMAIN_GAME
import Render

/// What `game/player` shows (a private site's page per player), built by
/// ``GamePlayerPage/build(_:analysis:simulated:)``: every number already as shown.
struct GamePlayerModel: TemplateRecord {
    var id, group, ageBand, gender: String
    var bestScore, lastScore, meanScore: String
    var sessions: Int
    var playedMinutes, meanSessionMinutes: String
    var encounters, hits, omissions, collisions, commissions, anticipatory: Int
    var reactionTime: String
    var norms: [NormRow]
    /// The reaction-time histogram and the trend across sessions, "" when not drawn.
    var histogram, trend: String
    var sessionRows: [SessionRow]
    var wording: String
    var suggest: Bool
    var reason: String
    var hasProbability: Bool
    var probability, low, high, unavailable: String
    var outOfFold, simulated: Bool
    var fit: Fit?

    static let fields = TemplateFields<Self>([
        .text("id") { $0.id },
        .text("group") { $0.group },
        .text("ageBand") { $0.ageBand },
        .text("gender") { $0.gender },
        .text("bestScore") { $0.bestScore },
        .text("lastScore") { $0.lastScore },
        .text("meanScore") { $0.meanScore },
        .int("sessions") { $0.sessions },
        .text("playedMinutes") { $0.playedMinutes },
        .text("meanSessionMinutes") { $0.meanSessionMinutes },
        .int("encounters") { $0.encounters },
        .int("hits") { $0.hits },
        .int("omissions") { $0.omissions },
        .int("collisions") { $0.collisions },
        .int("commissions") { $0.commissions },
        .int("anticipatory") { $0.anticipatory },
        .text("reactionTime") { $0.reactionTime },
        .list("norms", NormRow.self) { $0.norms },
        .text("histogram") { $0.histogram },
        .bool("hasHistogram") { !$0.histogram.isEmpty },
        .text("trend") { $0.trend },
        .bool("hasTrend") { !$0.trend.isEmpty },
        .list("sessionRows", SessionRow.self) { $0.sessionRows },
        .text("wording") { $0.wording },
        .bool("suggest") { $0.suggest },
        .text("reason") { $0.reason },
        .bool("hasProbability") { $0.hasProbability },
        .text("probability") { $0.probability },
        .text("low") { $0.low },
        .text("high") { $0.high },
        .text("unavailable") { $0.unavailable },
        .bool("outOfFold") { $0.outOfFold },
        .bool("simulated") { $0.simulated },
        .maybeObject("fit", Fit.self) { $0.fit },
    ])

    /// `norms[]`: a measure against the player's reference group.
    struct NormRow: TemplateRecord {
        var label, methods, value, z, percentile, bar, reference: String
        var referenceCount: Int
        var small, fallback: Bool

        static let fields = TemplateFields<Self>([
            .text("label") { $0.label },
            .text("methods") { $0.methods },
            .text("value") { $0.value },
            .text("z") { $0.z },
            .text("percentile") { $0.percentile },
            .text("bar") { $0.bar },
            .text("reference") { $0.reference },
            .int("n") { $0.referenceCount },
            .bool("small") { $0.small },
            .bool("fallback") { $0.fallback },
        ])
    }

    /// `sessionRows[]`: one session's counts and reaction times.
    struct SessionRow: TemplateRecord {
        var index: Int, minutes: String, obstacles, hits, omissions, commissions: Int
        var reactionTimeMean, reactionTimeSD: String
        var score: Int

        static let fields = TemplateFields<Self>([
            .int("index") { $0.index },
            .text("minutes") { $0.minutes },
            .int("obstacles") { $0.obstacles },
            .int("hits") { $0.hits },
            .int("omissions") { $0.omissions },
            .int("commissions") { $0.commissions },
            .text("rt") { $0.reactionTimeMean },
            .text("sd") { $0.reactionTimeSD },
            .int("score") { $0.score },
        ])
    }

    /// `fit`: the ex-Gaussian fit of the hit reaction times, when there is one.
    struct Fit: TemplateRecord {
        var mu, sigma, tau: String
        var count: Int
        var flags: [String]

        static let fields = TemplateFields<Self>([
            .text("mu") { $0.mu },
            .text("sigma") { $0.sigma },
            .text("tau") { $0.tau },
            .int("n") { $0.count },
            .text("flags") { $0.flags.joined(separator: ", ") },
            .bool("hasFlags") { !$0.flags.isEmpty },
        ])
    }
}
#endif
