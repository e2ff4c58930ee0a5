#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Experiences
import Render
import Escaping
import TextBasics

/// The `experiences` section: experience files → a static experience browser.
///
/// ```yaml
/// experiences:
///   input: data/experiences   # a folder: every *.json directly inside is one experience
/// ```
///
/// Per experience (unit = the file and every media file it names): a viewer page
/// `experiences/<slug>/index.html` with the data embedded as a JSON script block, an
/// overview (door graph, media checks, warnings) and a congratulations page; the media
/// are copied to `experiences/<slug>/files/`. The summary is the home page of widgets.
///
/// Rules over several files (unique titles, 10 custom experiences per owner, default
/// titles) are checked when the section is created, so a unit's salt carries its final title.
public struct ExperiencesSection: Section {
    public static let key = "experiences"
    public static let title = "Experiences"

    let project: Project
    let folder: URL
    /// Loaded experiences (default titles filled in), in file-name order.
    let experiences: [Experience]
    /// Warnings from loading, by slug.
    let loadWarnings: [String: [ExperienceIssue]]
    /// The file of each experience, by slug.
    let urls: [String: URL]
    /// Each experience file's SHA-256 as parsed here, by path.
    public let inputsReadEarly: [String: String]
    /// Each experience file's size in bytes as parsed, by path (its media budget counts it).
    let fileSizes: [String: Int]

    public init(config: SectionConfig, project: Project) throws {
        self.project = project
        guard let folder = try config.path("input") else { throw config.error(nil, "missing required key 'input'") }
        var isDir = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDir), isDir else {
            throw config.error("input", "must be a folder of experience files (*.json)")
        }
        self.folder = folder
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        // An empty folder is a project that has not made its first experience yet: the home
        // page says so and links the editor, which starts one from nothing.
        var loaded: [Experience] = []
        var issues: [ExperienceIssue] = []
        var urls: [String: URL] = [:]
        var digests: [String: String] = [:]
        var sizes: [String: Int] = [:]
        for name in names {
            let url = folder.appendingPathComponent(name)
            let (e, found) = Self.load(url, display: project.display(url), digests: &digests, sizes: &sizes)
            issues += found
            guard let e else { continue }
            urls[e.slug] = url
            loaded.append(e)
        }
        let (checked, collectionIssues) = ExperienceCollection.check(loaded)
        issues += collectionIssues
        let errors = issues.filter { $0.severity == .error }
        if !errors.isEmpty { throw DossierError(errors.map(Self.diagnostic)) }
        experiences = checked
        var warnings: [String: [ExperienceIssue]] = [:]
        for w in issues {
            if let e = checked.first(where: { $0.file == w.file }) { warnings[e.slug, default: []].append(w) }
        }
        loadWarnings = warnings
        self.urls = urls
        inputsReadEarly = digests
        fileSizes = sizes
    }

    /// ``ExperienceLoader/load(url:display:)`` from bytes read here, whose SHA-256 goes into
    /// `digests` under the file's path (``Section/inputsReadEarly``).
    static func load(_ url: URL, display: String, digests: inout [String: String], sizes: inout [String: Int])
        -> (Experience?, [ExperienceIssue])
    {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return ExperienceLoader.load(url: url, display: display)    // (its message says why)
        }
        digests[url.path] = Hashing.sha256(data)
        sizes[url.path] = data.count
        return ExperienceLoader.load(data: data, url: url, display: display)
    }

    static func diagnostic(_ i: ExperienceIssue) -> Diagnostic {
        Diagnostic(i.severity == .error ? .error : .warning, file: i.file, line: i.line, column: i.column, i.message)
    }

    public func units() throws -> [SectionUnit] {
        experiences.map { e in
            let media = e.mediaPaths.map { folder.appendingPathComponent($0) }
            return SectionUnit(id: e.slug, inputs: [fileURL(e)]
                               + media.filter { FileManager.default.fileExists(atPath: $0.path) },
                               salt: "title=\(e.title ?? "");v3")
        }
    }

    func fileURL(_ e: Experience) -> URL { urls[e.slug] ?? folder.appendingPathComponent(e.slug + ".json") }

    // MARK: One experience

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult {
        guard let e = experiences.first(where: { $0.slug == unit.id }) else { return UnitResult() }
        let base = "experiences/\(e.slug)/"
        let graph = GraphAnalysis(e)
        let fileBytes = fileSizes[fileURL(e).path] ?? 0     // (as parsed, not read again)
        let media = MediaReport(e, root: folder, fileBytes: fileBytes)
        var issues = (loadWarnings[e.slug] ?? []) + graph.issues(for: e) + media.warnings
        let title = e.title ?? e.slug

        // Media copied into the site.
        var files: [OutputFile] = []
        var bytes: [String: Data] = [:]
        for path in e.mediaPaths {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(path).path) else {
                continue
            }
            bytes[path] = data
            files.append(OutputFile(path: base + "files/" + path, data: data))
        }

        // Panoramas prepared with libvips (docs/experience-viewer.md, Prepared panoramas): one
        // script per scene carrying its ≤ 4096 px JPEG as a data: URL, loaded when the scene
        // is shown (a script works from file://, and a data: image is usable by WebGL there).
        var prepWarnings: [ExperienceIssue] = []
        var sceneImages: [String: String] = [:]
        for p in e.panoramas {
            guard let original = bytes[p.image] else { continue }
            let jpeg: Data
            do { jpeg = try PanoramaPrep.viewer(original).jpeg } catch {
                prepWarnings.append(.warning(e.file, p.line, "image \"\(p.image)\" could not be prepared "
                                             + "(\(error.message)); it is used as it is"))
                jpeg = original
            }
            let image = base + "prepared/\(p.id).jpg"
            files.append(OutputFile(path: image, data: jpeg))
            let mime = jpeg == original ? Self.mime(p.image) : "image/jpeg"
            let url = "data:\(mime);base64,\(jpeg.base64EncodedString())"
            files.append(OutputFile(path: base + "scenes/\(p.id).js",
                                    data: Data(Self.sceneScript(id: p.id, url: url).utf8)))
            sceneImages[p.id] = "prepared/\(p.id).jpg"
        }
        var thumb: String?
        if let first = e.panorama(e.firstPanorama), let original = bytes[first.image] {
            let small = (try? PanoramaPrep.thumbnail(original).jpeg) ?? original
            files.append(OutputFile(path: base + "prepared/thumb.jpg", data: small))
            thumb = base + "prepared/thumb.jpg"
        }

        // The viewer's data, embedded in the page (works from file://).
        let viewerData = ViewerData(
            title: title, first: e.firstPanorama, final: graph.final, congratulations: "congratulations/index.html",
            panoramas: e.panoramas.map { p in
                ViewerData.Pano(id: p.id, title: p.title, image: sceneImages[p.id] ?? "files/" + p.image,
                                startYaw: p.startYaw, startPitch: p.startPitch,
                                scene: sceneImages[p.id] == nil ? nil : "scenes/\(p.id).js",
                                triggers: p.triggers.map { t in
                                    ViewerData.Trig(id: t.id, kind: t.kind.rawValue, yaw: t.yaw, pitch: t.pitch,
                                                    size: t.size, label: t.label,
                                                    media: t.media.map { "files/" + $0 }, target: t.target,
                                                    targetYaw: t.targetYaw, targetPitch: t.targetPitch, text: t.text)
                                })
            })
        issues += prepWarnings
        let json = String(decoding: try JSONOutput.encode(viewerData), as: UTF8.self)
        let firstTitle = e.panorama(e.firstPanorama)?.title ?? ""
        var pages: [Page] = []
        pages.append(Page(path: base + "index.html", title: title, template: "experiences/viewer",
                          model: ExperienceViewerModel(
                            title: title, slug: e.slug, json: HTML.scriptSafeJSON(json), firstTitle: firstTitle,
                            firstScene: sceneImages[e.firstPanorama] == nil
                                ? nil : .init(src: "scenes/\(e.firstPanorama).js", id: e.firstPanorama),
                            totalClips: graph.totalClips),
                          styles: ["assets/experiences/viewer.css"],
                          scripts: ["assets/experiences/pano.js", "assets/experiences/viewer-look.js",
                                    "assets/experiences/viewer-dialogs.js", "assets/experiences/viewer.js"],
                          bodyClass: "experience-viewer"))

        // Overview: graph, media checks, warnings.
        let svg = GraphSVG.render(e, graph) { "../files/" + $0.image }
        let titles = Dictionary(e.panoramas.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
        let dead = Set(graph.deadEnds), unreachable = Set(graph.unreachable)
        let panoramaRows = e.panoramas.map { panorama in
            var status: [String] = []
            if panorama.id == graph.first { status.append("start") }
            if panorama.id == graph.final { status.append("final") }
            if unreachable.contains(panorama.id) { status.append("cannot be reached") }
            if dead.contains(panorama.id) { status.append("dead end") }
            let doors = panorama.doorTargets.map { titles[$0] ?? $0 }
            return ExperienceOverviewModel.PanoramaRow(
                id: panorama.id, title: panorama.title, clips: graph.clipsPerPanorama[panorama.id] ?? 0,
                doors: doors.isEmpty ? "—" : doors.joined(separator: ", "),
                status: status.isEmpty ? "—" : status.joined(separator: ", "))
        }
        let mediaRows = media.items.map { item in
            var notes: [String] = []
            if let levelNote = item.levelNote { notes.append(levelNote) }
            if item.loudOutlier { notes.append("much louder than the other clips") }
            if let width = item.width, width > Rules.safeTextureWidth {
                notes.append("wider than \(Rules.safeTextureWidth) px")
            }
            return ExperienceOverviewModel.MediaRow(
                path: item.path, role: item.role, size: Self.size(item.bytes),
                pixels: item.width.map { "\($0)×\(item.height ?? 0)" } ?? "—",
                rms: item.level.map { Self.db($0.rmsDBFS) } ?? "—",
                peak: item.level.map { Self.db($0.peakDBFS) } ?? "—",
                note: notes.isEmpty ? "—" : notes.joined(separator: "; "))
        }
        let path = graph.shortestPath ?? []
        pages.append(Page(path: base + "overview/index.html", title: "\(title): overview",
                          template: "experiences/overview",
                          model: ExperienceOverviewModel(
            title: title, description: e.description, file: e.file,
            kindLabel: e.kind == .premade ? "premade" : "custom",
            owner: e.owner, graphSVG: svg, firstTitle: firstTitle, finalTitle: titles[graph.final] ?? graph.final,
            finalClipsLabel: Self.count(graph.finalClips, "clip"), totalClipsLabel: Self.count(graph.totalClips,
                    "clip"),
            shortestPath: path.enumerated().map { .init(title: titles[$1] ?? $1, first: $0 == 0) },
            panoramas: panoramaRows, media: mediaRows,
            totalSize: Self.size(media.totalBytes), budget: Self.size(media.budgetBytes), overBudget: media.overBudget,
            warnings: issues.map { "\($0.line.map { "line \($0): " } ?? "")\($0.message)" }),
                          styles: ["assets/experiences/viewer.css"]))

        pages.append(Page(path: base + "congratulations/index.html", title: "Well done",
                          template: "experiences/congratulations",
                          model: ExperienceCongratulationsModel(title: title),
                          styles: ["assets/experiences/viewer.css"]))

        let record = ExperienceRecord(slug: e.slug, title: title, description: e.description, kind: e.kind.rawValue,
                                      thumb: thumb,
                                      panoramas: e.panoramas.count, clips: graph.totalClips, warnings: issues.count)
        return UnitResult(pages: pages, files: files, record: try JSONEncoder().encode(record),
                          warnings: issues.map(Self.diagnostic))
    }

    // MARK: Home page of widgets (F4)

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult {
        let decoder = JSONDecoder()
        let rows = try records.map { try decoder.decode(ExperienceRecord.self, from: $0.data) }
        let warningCount = rows.reduce(0) { $0 + $1.warnings }
        let items = rows.map { row in
            ExperiencesHomeModel.Widget(slug: row.slug, title: row.title, description: row.description,
                                        thumb: row.thumb ?? "", places: Self.count(row.panoramas, "place"),
                                        clipsLabel: Self.count(row.clips, "clip"), kindLabel: row.kind)
        }
        let page = Page(path: "experiences/index.html", title: "Experiences", template: "experiences/home",
                        model: ExperiencesHomeModel(experiences: items, warningCount: warningCount),
                        styles: ["assets/experiences/viewer.css"], bodyClass: "experience-home")
        let places = rows.reduce(0) { $0 + $1.panoramas }, clips = rows.reduce(0) { $0 + $1.clips }
        let blurb = "\(rows.count) experience\(rows.count == 1 ? "" : "s") to preview in the browser: "
            + "\(places) places, \(clips) clips."
        return UnitResult(pages: [page, editorPage()], blurb: blurb)
    }

    // MARK: The editor (docs/experience-editor.md)

    /// The caretakers' editor: the site's experiences (in the file format, with where their
    /// media are) are embedded so it works from `file://`.
    func editorPage() -> Page {
        let items = experiences.map { e -> String in
            let file = fileURL(e).lastPathComponent
            return "{\"file\":\(JSONText.quote(file)),\"slug\":\(JSONText.quote(e.slug)),"
                + "\"title\":\(JSONText.quote(e.title ?? e.slug)),"
                + "\"kind\":\(JSONText.quote(e.kind.rawValue)),\"owner\":\(e.owner.map(JSONText.quote) ?? "null"),"
                + "\"base\":\(JSONText.quote("../\(e.slug)/files/")),\"experience\":\(ExperienceWriter.json(e))}"
        }
        let json = "{\"experiences\":[" + items.joined(separator: ",") + "]}"
        var page = Page(path: "experiences/editor/index.html", title: "Experience editor",
                        template: "experiences/editor",
                        model: ExperienceEditorModel(json: HTML.scriptSafeJSON(json)),
                        styles: ["assets/experiences/viewer.css", "assets/experiences/editor.css"],
                        scripts: ["assets/experiences/rules.js", "assets/experiences/checks.js",
                                  "assets/experiences/zip.js", "assets/experiences/pano.js",
                                  "assets/experiences/editor-stage.js", "assets/experiences/editor-history.js",
                                  "assets/experiences/editor-util.js", "assets/experiences/editor-problems.js",
                                  "assets/experiences/editor-trigger.js", "assets/experiences/editor.js"],
                        bodyClass: "experience-editor")
        // An app: its sections appear one at a time, so no "On this page" (it came after
        // the whole editor on a phone, and four of its five links led into hidden sections).
        page.listsContents = false
        return page
    }

    // MARK: Helpers

    /// A scene script: stores the picture's data: URL and tells the viewer it is there.
    static func sceneScript(id: String, url: String) -> String {
        "(window.dossierScenes = window.dossierScenes || {})[\(JSONText.quote(id))] = \(JSONText.quote(url));\n"
            + "if (window.dossierScene) window.dossierScene(\(JSONText.quote(id)));\n"
    }
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
    static func mime(_ path: String) -> String { path.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg" }
    static func size(_ b: Int) -> String {
        if b >= 1_000_000 { return cFormat("%.1f MB", Double(b) / 1_000_000) }
        if b >= 1_000 { return cFormat("%.0f kB", Double(b) / 1_000) }
        return "\(b) bytes"
    }
    /// A level in dBFS for the overview page: one decimal, U+2212 for the (usual) negative sign.
    static func db(_ v: Double?) -> String { v.map { ValueFormat.minus(cFormat("%.1f", $0)) } ?? "silent" }
}

/// What the viewer script reads from the page (docs/experience-viewer.md).
struct ViewerData: Encodable {
    struct Trig: Encodable {
        var id, kind: String
        var yaw, pitch, size: Double
        var label: String
        var media, target: String?
        var targetYaw, targetPitch: Double?
        var text: String?
    }
    struct Pano: Encodable {
        var id, title, image: String
        var startYaw, startPitch: Double
        /// The scene script that carries the prepared image as a data: URL.
        var scene: String?
        var triggers: [Trig]
    }
    var title, first, final, congratulations: String
    var panoramas: [Pano]
}

/// What one experience leaves for the home page.
struct ExperienceRecord: Codable {
    var slug, title, description, kind: String
    var thumb: String?
    var panoramas, clips, warnings: Int
}
