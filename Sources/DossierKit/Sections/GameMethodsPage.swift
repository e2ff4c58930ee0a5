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

    /// One definition per normed measure, by its name: the text file
    /// `Templates/game/methods-measures.txt` (`## <name>`, then the definition), so a writer
    /// changes a sentence there (ProseTextTests checks that every measure has one).
    static let definitions = ProseText.sections(file: "Templates/game/methods-measures.txt")

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
