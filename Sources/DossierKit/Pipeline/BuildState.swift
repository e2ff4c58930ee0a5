import Foundation

/// What the previous build left behind for incremental builds: for every unit, the
/// hash of its inputs and what it produced. Stored in `.dossier/state-<output>.json`.
struct BuildState: Codable {
    struct Unit: Codable {
        var hash: String
        var files: [ManifestFile]
        /// Internal links found on each HTML page of the unit (for the link check).
        var links: [String: [String]]
        var record: Data?
        var warnings: [Diagnostic]
        var pages: Int
        var blurb: String?
    }

    var dossier: String
    var output: String
    var units: [String: Unit]

    static func load(_ url: URL, output: URL) -> BuildState? {
        guard let data = FileManager.default.contents(atPath: url.path),
              let s = try? JSONDecoder().decode(BuildState.self, from: data),
              s.dossier == DossierVersion.string, s.output == output.path else { return nil }
        return s
    }

    func save(_ url: URL) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        try AtomicFile.write(try enc.encode(self), to: url, sync: false)
    }
}
