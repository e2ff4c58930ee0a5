// Compiled only with the game domain (Package.swift excludes GameSection.swift otherwise).
#if DOMAIN_GAME
import GameAnalytics
import Render

// MARK: - Methods page

/// `game/methods.html`: how every measure shown on the game pages is defined, each under
/// its own anchor (`#<measure name>`) that the cohort and player pages link to. The text is
/// docs/game-measures.md's, written for a reader of the site.
enum GameMethodsPage {
    static let path = "game/methods.html"

    /// The link to one measure's definition, from a page at `root`.
    static func link(_ measure: String) -> String { path + "#" + measure }

    /// One definition per normed measure, in ``MeasureCatalog/normed`` order.
    static let definitions: [String: String] = [
        "hitRTMean": "The mean reaction time of the hits: for each obstacle, the first tap at least 100 ms after it appears and before its response window ends (below), minus the time it appeared.",
        "hitRTSD": "The standard deviation of the hit reaction times (n − 1 denominator): reaction-time variability.",
        "hitRTCV": "Hit RT SD divided by hit RT mean: variability relative to speed.",
        "mu": "μ of the ex-Gaussian fitted to the hit reaction times by maximum likelihood: the mean of its normal part (ms).",
        "sigma": "σ of the ex-Gaussian fit: the standard deviation of its normal part (ms).",
        "tau": "τ of the ex-Gaussian fit: the mean of its exponential tail (ms), the share of slow responses. The fit is censored: an omission counts as a response slower than its window (1,000 ms, or less when the next obstacle or the session end — duration + 1 − a — came first; windows under 100 ms are left out), so the slow tail is not cut off. The fit without omissions is kept beside it.",
        "omissionRate": "Omissions ÷ obstacles: the share of obstacles with no hit in their response window.",
        "commissionRate": "Commissions per minute of play: taps that answered no obstacle — outside every response window, or after the hit in the same window — divided by the minutes played.",
        "anticipatoryRate": "Obstacles with an anticipatory tap (one less than 100 ms after the obstacle appeared: too fast to be a reaction) ÷ obstacles; a window with several counts once.",
        "dPrime": "Detectability d′ = Φ⁻¹(H) − Φ⁻¹(F) with the log-linear correction: H = (hits + 0.5) ÷ (obstacles + 1); F = (min(commissions, slots) + 0.5) ÷ (slots + 1), where the slots are the one-second stretches of play outside every response window (at least 1). Higher is better.",
        "blockSlope": "Vigilance: the least-squares slope of hit RT on the block number (obstacles 1–10, 11–20, … of each session), in ms per block of 10 obstacles. Above 0: slower as the session goes on.",
        "isiSlope": "The least-squares slope of hit RT on the interval before the obstacle (seconds), in ms per second.",
    ]

    /// The page: the matching rules, then every measure with its anchor.
    static func page() -> Page {
        let measures = MeasureCatalog.normed.map { entry in
            GameMethodsModel.Measure(id: entry.name, label: entry.label, unit: entry.unit,
                                     definition: definitions[entry.name] ?? "",
                                     direction: entry.higherIsAtypical ? "higher" : "lower")
        }
        let features = MeasureCatalog.features.enumerated().map { index, feature in
            GameMethodsModel.Feature(id: feature, label: MeasureCatalog.label(feature),
                                     last: index == MeasureCatalog.features.count - 1)
        }
        return Page(path: path, title: "Game measures: how they are defined", template: "game/methods",
                    model: GameMethodsModel(measures: measures, window: Scoring.responseWindow,
                                            anticipatory: Scoring.anticipatory, features: features))
    }
}
#endif
