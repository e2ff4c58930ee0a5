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

    /// The text file holding one definition per normed measure, under `## <name>`.
    static let definitionsFile = "Templates/game/methods-measures.txt"

    /// Every normed measure's definition by its name (from the text file); a
    /// measure the file lacks is an error naming the file.
    static func definitions() throws -> [String: String] {
        let found = try ProseText.sections(file: definitionsFile)
        for e in MeasureCatalog.normed where found[e.name] == nil {
            throw DossierError("Dossier's built-in \(definitionsFile) has no definition of \(e.name)")
        }
        return found
    }

    /// The page: the matching rules, then every measure with its anchor.
    static func page() throws -> Page {
        let definitions = try definitions()
        let measures: [[String: Any]] = MeasureCatalog.normed.map { e in
            ["id": e.name, "label": e.label, "unit": e.unit, "hasUnit": !e.unit.isEmpty,
             "definition": definitions[e.name] ?? "", "direction": e.higherIsAtypical ? "higher" : "lower"]
        }
        return Page(path: path, title: "Game measures: how they are defined", template: "game/methods",
                    model: ["measures": measures, "window": Scoring.responseWindow, "anticipatory": Scoring.anticipatory,
                            "features": MeasureCatalog.features.enumerated().map { k, f in
                                ["id": f, "label": MeasureCatalog.label(f), "last": k == MeasureCatalog.features.count - 1] }])
    }
}
#endif
