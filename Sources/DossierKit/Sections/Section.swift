#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render

// MARK: - Section

/// The glue between one domain core and the renderer: the only place that knows both.
///
/// A section reads its block of `dossier.yml`, splits its inputs into *units* (a unit is
/// rebuilt only when the hash of its input files changes), builds each unit into pages
/// and side files, and finally builds its summary pages from the small records the
/// units left behind (records of unchanged units come from the cache).
///
/// Adding a domain: write `Sources/DossierKit/Sections/<Name>Section.swift` conforming
/// to this protocol, list it in ``SectionRegistry``, put its templates under
/// `Templates/<key>/`, and document its block in `docs/manifest.md`.
public protocol Section: Sendable {
    /// The key of the section's block in `dossier.yml` and its folder in the site.
    static var key: String { get }
    /// A human title for navigation and the home page.
    static var title: String { get }

    /// Reads and validates the block. Throw `config.error(key, "…")` for bad values;
    /// missing input files are errors too. Every key read is marked known; any other
    /// key in the block is reported as unknown by the pipeline.
    init(config: SectionConfig, project: Project) throws

    /// The units of work, in a stable order. Ids must be unique within the section.
    func units() throws -> [SectionUnit]

    /// Imports, computes and renders one unit. Pure with respect to the site: it
    /// returns pages and files; the pipeline writes them.
    func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult

    /// Builds the section's own pages (at least `<key>/index.html`) from every unit's
    /// record, in unit order.
    func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult

    /// Input files the section parsed while it was made (step 1) and keeps for its units
    /// (a study's strings files): each path, as units name it in ``SectionUnit/inputPaths``,
    /// with the SHA-256 (hex) of the bytes parsed. The plan refuses a build in which it
    /// hashes another version of one: the file was written during the build.
    var inputsReadEarly: [String: String] { get }

    /// Input files the section read while listing its units (``units()``), before the plan
    /// hashes them: each path with ``EarlyReadStamps``' stamp taken before the read. The
    /// plan refuses a build in which its own stamp of one differs (written in between).
    var inputStampsReadEarly: [String: String] { get }
}

extension Section {
    public var inputsReadEarly: [String: String] { [:] }
    public var inputStampsReadEarly: [String: String] { [:] }
}

// MARK: - Units

/// A piece of a section rebuilt as a whole: e.g. one participant, one experience.
public struct SectionUnit: Sendable, Hashable {
    /// Unique within the section, stable across builds (e.g. the participant id).
    public var id: String
    /// Paths (`URL.path`) of the files whose bytes decide whether the unit must be rebuilt.
    /// Kept as paths, not URLs: a unit lives for the whole build, and a `URL` is about
    /// 0.4 KB (a study's 2,000 logs, docs/incremental.md "Round seven: memory").
    public var inputPaths: [String]
    /// ``inputPaths`` as file URLs (made when asked for).
    public var inputs: [URL] {
        get { inputPaths.map { URL(filePath: $0, directoryHint: .notDirectory) } }
        set { inputPaths = newValue.map(\.path) }
    }
    /// Extra text mixed into the unit's hash (e.g. options that affect only this unit).
    public var salt: String
    /// The unit reads its first input (`inputPaths[0]`, read by no other unit) whole through
    /// ``SectionContext/readOwnInput(_:)``: a build that cannot reuse the unit then hashes
    /// those bytes instead of reading the file once more to plan (docs/incremental.md).
    public var readsOwnInput = false
    /// Inputs (some of ``inputPaths``) whose bytes are a secret — a `password_file:`: their
    /// SHA-256 and size are written nowhere (not the manifest, the state or the unit's key);
    /// the unit's key takes the file's times and inode instead (docs/output-manifest.md,
    /// "Secret inputs").
    public var secretPaths: [String] = []
    /// Inputs (some of ``inputPaths``) the unit reads in one consistent snapshot while other
    /// programs may write them — a game's database that an ingest keeps writing: not checked
    /// once the unit is built (every other input must still be as the plan stamped it,
    /// docs/incremental.md "A file written while its unit is built").
    public var snapshotInputs: [String] = []
    /// Its build may find a salt other than the plan's (the game's privacy key, made by the
    /// first build that needs it): the plan keeps its input digests, so that a result with
    /// ``UnitResult/saltAfterBuild`` is stored under the key the next plan will compute.
    public var saltSetWhenBuilt = false

    public init(id: String, inputs: [URL], salt: String = "") {
        self.init(id: id, inputPaths: inputs.map(\.path), salt: salt)
    }

    public init(id: String, inputPaths: [String], salt: String = "") {
        self.id = id
        self.inputPaths = inputPaths
        self.salt = salt
    }
}

/// What a unit left for the section summary: JSON bytes the section defines.
public struct UnitRecord: Sendable {
    public var id: String
    /// The record's bytes: read from the build's spill file for units built in this
    /// build (records are not kept in memory, docs/incremental.md), so read each once.
    public var data: Data { get throws { try stored.data() } }
    let stored: StoredRecord
    /// The unit's stored blob (``UnitResult/blob``), if it left one: read it while
    /// summarizing, one unit at a time. (Made when asked for: a URL per unit held for the
    /// whole summary was 0.3 KB a study participant.)
    public var blob: URL? { blobAt.map { $0.folder.appending(path: $0.name, directoryHint: .notDirectory) } }
    let blobAt: (folder: URL, name: String)?
    public init(id: String, data: Data, blob: URL? = nil) {
        self.init(
            id: id, stored: .inMemory(data), folder: blob?.deletingLastPathComponent(), name: blob?.lastPathComponent)
    }
    /// A record whose blob, if any, is the file `name` in `folder`.
    init(id: String, stored: StoredRecord, folder: URL?, name: String?) {
        self.id = id; self.stored = stored
        if let folder, let name { blobAt = (folder, name) } else { blobAt = nil }
    }
}

/// The product of building a unit or a summary.
public struct UnitResult: Sendable {
    /// HTML pages, rendered by the pipeline through their template and the layout.
    public var pages: [Page]
    /// Side outputs (CSV, JSON, Markdown, SVG, copied media) written as they are.
    public var files: [OutputFile]
    /// Data for the summary (see ``UnitRecord``); `nil` for summaries.
    public var record: Data?
    /// Warnings shown in the build log (the section should also show them on its pages).
    public var warnings: [Diagnostic]
    /// One sentence for the home page (summaries only).
    public var blurb: String?
    /// Large data for the summary that stays on disk, not in memory or in the build state
    /// (units only): stored by the pipeline beside the state, handed to the summary as
    /// ``UnitRecord/blob`` (docs/incremental.md).
    public var blob: Data?
    /// Files written piece by piece, after `files` (summaries of large sections: the
    /// study-wide tables are never held in memory whole).
    public var streams: (@Sendable (OutputStreams) throws -> Void)?
    /// The unit's salt as its build found it, when that differs from the plan's (units with
    /// ``SectionUnit/saltSetWhenBuilt`` only; nil: the plan's).
    public var saltAfterBuild: String?

    public init(pages: [Page] = [], files: [OutputFile] = [], record: Data? = nil,
                warnings: [Diagnostic] = [], blurb: String? = nil, blob: Data? = nil,
                streams: (@Sendable (OutputStreams) throws -> Void)? = nil) {
        self.blob = blob
        self.streams = streams
        self.pages = pages
        self.files = files
        self.record = record
        self.warnings = warnings
        self.blurb = blurb
    }
}

// MARK: - Pages and files

/// A page to render: `template` (a name under `Templates/`, e.g. `recall/participant`)
/// is rendered with `model`, then wrapped in the site layout.
///
/// Besides the section's own keys, every model gets `root` (relative path to the site
/// root, e.g. `../../`, so links work from `file://`), `site` (title, description,
/// baseURL) and `title`. Links in templates must be relative: write `{{root}}recall/`.
public struct Page: @unchecked Sendable {
    /// Output path relative to the site root, ending in `.html` (e.g. `recall/p01/index.html`).
    public var path: String
    public var title: String
    public var template: String
    /// The page's model: a struct listing its fields (``TemplateRecord``), built by one
    /// function per page kind (docs/architecture.md, "A page of an existing section").
    public var model: any TemplateRecord
    /// Extra stylesheets / scripts (site-relative paths, e.g. `assets/viewer.js`).
    public var styles: [String]
    public var scripts: [String]
    /// Table of contents for the layout (from ``Markdown``), if any.
    public var toc: [TOCEntry]
    /// Page-level `<body class>` hook for templates and CSS.
    public var bodyClass: String
    /// A part of the page written piece by piece once the rest is rendered (a table of
    /// thousands of rows), or nil: see ``PageSplice``.
    public var splice: PageSplice?
    /// Whether the layout may give a long page without ``toc`` an "On this page" list of
    /// its `<h2>` headings (docs/design-system.md, "Contents on long pages"). False for an
    /// app page that shows its sections one at a time (the experience editor): most of
    /// its headings are hidden, and the list would point into nothing.
    public var listsContents = true

    public init(path: String, title: String, template: String, model: any TemplateRecord,
                styles: [String] = [], scripts: [String] = [], toc: [TOCEntry] = [], bodyClass: String = "") {
        self.path = path
        self.title = title
        self.template = template
        self.model = model
        self.styles = styles
        self.scripts = scripts
        self.toc = toc
        self.bodyClass = bodyClass
    }
}

/// A part of a page too large to hold as one text (the study summary's table of every
/// participant): the page is rendered with ``marker`` where the part goes — through its
/// template, the table pass and the layout as usual — and written as the text before the
/// marker, each piece ``pieces`` emits, and the text after it. Pieces are final HTML:
/// the template, the table pass and the layout do not see them (a table among them is
/// written in its final form, ``TableMarkup/finalTableTag``); control characters in them
/// are made visible and their links checked like the rest of the page's.
public struct PageSplice: Sendable {
    /// Where the part goes: at most once in the rendered page (escaped text cannot forge
    /// it); a page without it (a project's template that leaves the part out) is written
    /// as rendered.
    public static let marker = "<!--dossier:splice-->"
    /// Emits the part's pieces in order.
    public var pieces: @Sendable (_ emit: (String) throws -> Void) throws -> Void

    public init(pieces: @escaping @Sendable (_ emit: (String) throws -> Void) throws -> Void) { self.pieces = pieces }
}

/// A file written as-is into the site.
public struct OutputFile: Sendable {
    public var path: String
    public var data: Data
    public init(path: String, data: Data) { self.path = path; self.data = data }
    public init(path: String, text: String) { self.path = path; self.data = Data(text.utf8) }
}

// MARK: - Context

/// What a section may use while building: the project, the Markdown renderer and
/// named templates for fragments. Safe to use from many tasks at once.
public struct SectionContext: Sendable {
    public let project: Project
    let templates: TemplateSet
    /// `dossier check`: nothing may be written, in the site or in the project.
    public var checkOnly = false
    /// The unit's own input, when the plan left it unread (``SectionUnit/readsOwnInput``).
    var ownInput: OwnInputRead?

    /// The bytes of the unit's own input `path`, read with read(2); hashed and stamped on
    /// the way when the plan left it unread. Nil when the file cannot be read.
    public func readOwnInput(_ path: String) -> [UInt8]? {
        if let own = ownInput, own.path == path { return own.read() }
        return OwnInputRead.readFile(path)
    }

    init(project: Project, templates: TemplateSet, checkOnly: Bool = false) {
        self.project = project
        self.templates = templates
        self.checkOnly = checkOnly
    }

    /// Markdown → HTML with the project's safety settings (raw HTML dropped unless opted in).
    public func markdown(_ text: String) -> RenderedMarkdown {
        Markdown.render(text, options: project.markdownOptions)
    }

    /// Renders a named template (e.g. a fragment shared by many pages) with `model`.
    public func render(template: String, model: any TemplateRecord) throws -> String {
        try templates.render(template, model)
    }

    /// The relative prefix from `pagePath` to the site root (`recall/p1/index.html` → `../../`).
    public func root(from pagePath: String) -> String { SitePaths.root(from: pagePath) }
}
