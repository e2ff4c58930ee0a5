import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// A project folder: its `dossier.yml` manifest, content pages, templates and the
/// section blocks that name domain inputs.
///
/// ```yaml
/// title: Memory study 2026
/// description: Per-participant reports and a summary.
/// base_url: https://example.org/study/
/// output: _site            # default
/// markdown:
///   unsafe: false          # true keeps raw HTML in Markdown (off by default)
/// recall:                  # one block per section, see docs/manifest.md
///   strings: data/strings.txt
/// ```
public struct Project: Sendable {
    /// The project folder.
    public let root: URL
    /// The manifest file.
    public let manifestURL: URL
    public var title: String
    public var description: String
    /// Absolute base URL for `sitemap.xml` (may be empty: relative sitemap entries).
    public var baseURL: String
    /// The output folder (absolute).
    public var output: URL
    public var markdownOptions: MarkdownOptions
    /// Section blocks in manifest order.
    public var sectionConfigs: [SectionConfig]
    /// Start every CSV output with a UTF-8 byte-order mark (`csv: bom:`, default true:
    /// Excel reads BOM-less UTF-8 as the local code page; see docs/json-and-csv.md).
    public var csvBOM = true
    /// The line of `output:` in the manifest (for messages about the output folder).
    public var outputLine = 1
    /// SHA-256 (hex) and size of the `dossier.yml` bytes this project was parsed from: the
    /// build's manifest records these, not a later read of a file that may have been
    /// edited since (docs/output-manifest.md).
    public var manifestSHA256 = ""
    public var manifestSize = 0

    /// Keys the manifest may hold besides section keys.
    public static let topLevelKeys: Set<String> = [
        "title", "description", "base_url", "output", "markdown", "content", "csv", "archive",
        "allow_outside"
    ]
    /// Paths outside the project that inputs may link to (`allow_outside:`), absolute.
    public var allowOutside: [URL] = []
    /// Which linked inputs may be read (see ``Confinement``).
    public var confinement: Confinement { Confinement(root: root, allowed: allowOutside) }

    /// Loads `dossier.yml` from `folder`. Unknown keys, bad values and missing files
    /// are errors with file and line.
    public static func load(_ folder: URL, sectionKeys: Set<String> = SectionRegistry.keys) throws -> Project {
        let root = folder.standardizedFileURL
        let manifest = root.appendingPathComponent("dossier.yml")
        let shown = SitePaths.display(manifest)
        guard FileManager.default.fileExists(atPath: manifest.path) else {
            var isDir = false
            if !FileManager.default.fileExists(atPath: root.path, isDirectory: &isDir) || !isDir {
                throw DossierError(file: SitePaths.display(root), "no such project folder")
            }
            throw DossierError(file: shown, "no dossier.yml in this folder (create one with `dossier new`)")
        }
        let data = try InputFile.read(
            manifest, shown: shown, limit: InputLimits.manifest, what: "dossier.yml", confinement: nil)
        guard let text = String(data: data, encoding: .utf8) else {
            throw DossierError(file: shown, "not UTF-8 text")
        }
        let node = try ConfigNode.parse(text, file: shown)
        guard case .map(let entries, _) = node else {
            throw DossierError(file: shown, line: node.line, "the manifest must be a mapping of keys to values")
        }
        let top = SectionConfig(key: "", file: shown, root: root, node: node)
        func str(_ k: String) throws -> String? {
            guard let v = top.value(k) else { return nil }
            switch v {
            case .scalar(let s, _): return s
            case .null: return nil
            default: throw DossierError(file: shown, line: v.line, "\(k): expected a single value")
            }
        }
        let title = ControlCharacters.display(try str("title") ?? root.lastPathComponent)
        let description = ControlCharacters.display(try str("description") ?? "")
        let baseURL = try BaseURL.check(try str("base_url") ?? "", file: shown, line: top.line("base_url"))
        let output = try OutputFolder.resolve(
            try str("output") ?? "_site", root: root, file: shown, line: top.line("output"))

        // `markdown:` and `csv:` are blocks of keys; empty is the same as absent.
        for k in ["markdown", "csv"] {
            switch top.value(k) {
            case .scalar(_, let line)?, .list(_, let line)?:
                let keys = k == "csv" ? "bom: true" : "smart: true, unsafe: false"
                throw DossierError(file: shown, line: line, "\(k): expected a block of keys (such as \(keys))")
            default: break
            }
        }
        var options = MarkdownOptions()
        if let md = top.block("markdown") {
            options.unsafeHTML = try md.bool("unsafe", default: false)
            options.smartPunctuation = try md.bool("smart", default: false)
            if let bad = md.unknownKeys().first {
                throw DossierError(
                    file: shown, line: bad.keyLine,
                    "markdown: " + KeySuggestion.unknownKey(bad.key, known: ["unsafe", "smart"]))
            }
        }
        _ = top.value("content")
        var csvBOM = true
        if let csv = top.block("csv") {
            csvBOM = try csv.bool("bom", default: true)
            if let bad = csv.unknownKeys().first {
                throw DossierError(
                    file: shown, line: bad.keyLine, "csv: " + KeySuggestion.unknownKey(bad.key, known: ["bom"]))
            }
        }

        var sections: [SectionConfig] = []
        for e in entries where !topLevelKeys.contains(e.key) {
            guard sectionKeys.contains(e.key) else {
                throw DossierError(
                    file: shown, line: e.keyLine,
                    KeySuggestion.unknownKey(e.key, known: topLevelKeys.union(sectionKeys).sorted()))
            }
            sections.append(SectionConfig(key: e.key, file: shown, root: root, node: e.value))
        }
        let allowOutside = try top.strings("allow_outside").map { top.resolve($0).standardizedFileURL }
        let confinement = Confinement(root: root, allowed: allowOutside)
        for s in sections { s.confinement = confinement }
        try OutputFolder.checkInputs(
            output, inputs: sections.flatMap { $0.node.scalars }, root: root, file: shown, line: top.line("output"))
        var project = Project(
            root: root, manifestURL: manifest, title: title, description: description, baseURL: baseURL,
            output: output, markdownOptions: options, sectionConfigs: sections)
        project.outputLine = top.line("output")
        project.manifestSHA256 = Hashing.sha256(data)
        project.manifestSize = data.count
        project.csvBOM = csvBOM
        project.allowOutside = allowOutside
        return project
    }

    /// `content/` folder of Markdown pages.
    public var contentFolder: URL { root.appendingPathComponent("content") }
    /// `templates/` folder of overrides.
    public var templatesFolder: URL { root.appendingPathComponent("templates") }
    /// `static/` folder copied into the site as-is.
    public var staticFolder: URL { root.appendingPathComponent("static") }
    /// Cache and build state.
    public var stateFolder: URL { root.appendingPathComponent(".dossier") }
    /// Set for a run that must write nothing in the project (`dossier check`): a temporary
    /// folder, removed when the run ends, for what a build keeps in the state folder.
    public var scratchFolder: URL?
    /// Where copies of inputs read from elsewhere are kept (a database's recall logs): the
    /// state folder, or the scratch folder of a run that writes nothing.
    public var cacheFolder: URL { scratchFolder ?? stateFolder }
    /// The manifest of every output file, written beside the site.
    public var outputManifestURL: URL {
        output.deletingLastPathComponent().appendingPathComponent(output.lastPathComponent + ".manifest.json")
    }

    /// A path shown in messages and pages: relative to the project folder when inside it
    /// (so output never depends on where `dossier` was started), else as given.
    public func display(_ url: URL) -> String {
        let p = url.standardizedFileURL.path
        let r = root.path
        if p.hasPrefix(r + "/") { return String(p.dropFirst(r.count + 1)) }
        return SitePaths.display(url)
    }
}
