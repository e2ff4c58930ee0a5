import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import StudyStore
import TextBasics

// MARK: - Options and report

/// How to build.
public struct BuildOptions: Sendable {
    /// Ignore the incremental cache and rebuild everything.
    public var clean = false
    /// Include pages marked `draft: true`.
    public var drafts = false
    /// Validate everything, write nothing (the staging folder lives in a temp folder
    /// and is removed; no state, no manifest).
    public var checkOnly = false
    /// Write to this folder instead of the manifest's `output` (the preview server).
    public var output: URL? = nil
    /// The process ends when the build does (`dossier build`, `dossier check`): the build's
    /// tables (every page's links, the state, the file lists) are left for the exit to
    /// free, not freed entry by entry (1.5 % of a 10,000-page build's CPU). Off for a
    /// process that builds again (the preview server, tests).
    public var leaveMemoryToExit = false
    /// A unit that reads its own input hashes it as it reads it on a build that cannot
    /// reuse it (OwnInputRead.swift); off only in the tests that compare it with its twin.
    var readOwnInputsOnce = true
    public init(clean: Bool = false, drafts: Bool = false, checkOnly: Bool = false, output: URL? = nil) {
        self.clean = clean
        self.drafts = drafts
        self.checkOnly = checkOnly
        self.output = output
    }
}

/// What a build did.
public struct BuildReport: Sendable {
    public var pagesRendered = 0
    public var pagesReused = 0
    public var unitsBuilt = 0
    public var unitsReused = 0
    public var files = 0
    public var warnings: [Diagnostic] = []
    public var output: URL
    public var manifest: URL
    public var seconds: Double = 0
}

// MARK: - Builder

/// The build: a list of named steps over a ``BuildContext``.
///
/// 1. Read dossier.yml and section inputs  2. Load templates  3. Read content pages  4. Plan (hash inputs)
/// 5…k. Build each section (units in parallel, unchanged units reused)
/// then Render content pages and home, Copy assets, Check links, Write site.
/// Output goes to a staging folder swapped into place only when every step succeeded.
public final class Builder: @unchecked Sendable {
    public let folder: URL
    public let options: BuildOptions
    public let log: BuildLog

    public init(project folder: URL, options: BuildOptions = BuildOptions(), log: BuildLog = BuildLog()) {
        self.folder = folder
        self.options = options
        self.log = log
    }

    typealias Step = (name: String, run: (BuildContext) async throws -> Void)

    public func build() async throws -> BuildReport {
        let start = Date()
        var project = try Project.load(folder)
        if options.checkOnly {   // a check writes nothing in the project
            project.scratchFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "dossier-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        }
        defer { if let s = project.scratchFolder { try? FileManager.default.removeItem(at: s) } }
        // One build of a site at a time, and none while a publish or an archive reads it
        // (SiteLock); held until this function returns, past the state's save.
        let siteLock = options.checkOnly ? nil
            : SiteLock.take(options.output ?? project.output, .write, command: "build") { [log] in log.notice($0) }
        defer { withExtendedLifetime(siteLock) {} }
        let ctx = BuildContext(project: project, options: options, log: log)
        defer { if options.leaveMemoryToExit { _ = Unmanaged.passRetained(ctx) } }

        var steps: [Step] = [
            ("Read dossier.yml and section inputs", { try $0.loadSections() }),
            ("Load templates", { try $0.loadTemplates() }),
            ("Read content pages", { try $0.loadContent() }),
            ("Plan: hash inputs", { try $0.plan() }),
        ]
        for (i, s) in ctx.sectionTypes.enumerated() {
            steps.append(("Build \(s.title.lowercased())", { try await $0.buildSection(i) }))
        }
        steps += [
            ("Render content pages", { try await $0.renderContent() }),
            ("Copy assets", { try $0.copyAssets() }),
            ("Check links", { try $0.checkLinks() }),
            (options.checkOnly ? "Discard (check only)" : "Write site", { try $0.finish() }),
        ]
        for (i, step) in steps.enumerated() {
            log.step(i + 1, of: steps.count, step.name)
            let began = Date()
            do {
                try await step.run(ctx)
                log.detail(cFormat("took %.3f s", Date().timeIntervalSince(began)))
            } catch {
                let staging = ctx.tree?.staging
                ctx.tree?.discard()
                var diags = BuildSiteErrors.named(error.diagnostics, staging: staging,
                                                  output: project.display(ctx.output))
                // Blame the input that failed, not only the step: a bad experience file is not dossier.yml.
                let inputs = i == 0
                    ? ctx.inputFailures.map { "\($0.section) section's input \($0.files.joined(separator: ", "))" } : []
                let place = inputs.isEmpty ? step.name : "\(step.name), in the " + inputs.joined(separator: " and the ")
                diags.append(Diagnostic(.note, file: nil, line: nil,
                    "build failed at step [\(i + 1)/\(steps.count)] \(place); "
                    + (options.checkOnly ? "nothing was written"
                       : ctx.liveTouched ? "the site was partly replaced; run dossier build again to finish it"
                       : "the previous site is unchanged")))
                throw DossierError(diags)
            }
        }
        var report = ctx.report
        report.seconds = Date().timeIntervalSince(start)
        let shown = project.display(report.output)
        let warnings = report.warnings.count
        log.info("Done: \(report.pagesRendered) page\(report.pagesRendered == 1 ? "" : "s") rendered, "
                 + "\(report.pagesReused) unchanged; \(report.files) files"
                 + (options.checkOnly ? " checked (nothing written)" : " in \(shown)")
                 + cFormat(" (%.2f s)", report.seconds)
                 + (warnings == 0 ? "" : "; \(warnings) warning\(warnings == 1 ? "" : "s")"))
        return report
    }
}

// MARK: - Context

/// The typed state the build steps share.
final class BuildContext: @unchecked Sendable {
    let project: Project
    let options: BuildOptions
    let log: BuildLog
    let output: URL
    /// `output.path`, for building file paths without URL arithmetic.
    let outputPath: String
    let statePath: URL
    /// Where units' blobs are kept (`.dossier/units-<output>/<unit hash>`), and where this
    /// build writes new ones (a temp folder for `dossier check`, which writes nothing).
    let blobFolder: URL
    let newBlobFolder: URL
    /// `newBlobFolder.path` once the folder is made in this build (``blobFolderPath()``).
    var blobFolderMade: String?
    /// Pages of units built (not reused) in this build: their links are always checked.
    var freshPages: Set<String> = []

    var sectionTypes: [any Section.Type] = []
    var sections: [any Section] = []
    /// Sections whose input files (not their dossier.yml block) failed step 1, with those files.
    var inputFailures: [(section: String, files: [String])] = []
    var templates: TemplateSet!
    var renderer: SiteRenderer!
    var content: [ContentPage] = []
    /// ``ContentLinks/map(_:)`` of `content`, set with it.
    var contentMap: [String: String] = [:]
    /// How content pages' folder and site-absolute links are rewritten (set by renderContent).
    var folderLinks = FolderLinks(baseURL: "")
    /// Set while content pages are rendered: a page certain to fail the link check stops
    /// the writing of files (EarlyLinkCheck.swift).
    var earlyLinkCheck: EarlyLinkCheck?
    var tree: OutputTree?
    /// Set once this build starts replacing live files (the swap or the patch): a failure
    /// after it leaves a site the next build finishes, not the previous one.
    var liveTouched = false
    var previous: BuildState?
    var newState: BuildState
    /// This build's record spill file (``recordSpill()``) and the link texts and lists seen
    /// so far (``interned(_:)``): see BuildMemory.swift.
    var spill: RecordSpill?
    /// (By hash value, computed before the lock is taken; equal hashes are told apart by
    /// comparing the texts and lists.)
    var linkTexts: [Int: [String]] = [:]
    var linkLists: [Int: [[String]]] = [:]
    var planned: [[PlannedUnit]] = []
    var blurbs: [String: String] = [:]
    var links: [String: [String]] = [:]
    /// The links of a content page the early check left to the link check (not every one:
    /// ``linksLeftAfterEarlyCheck(_:on:)``); a page not here has all its links checked.
    var linksLeft: [String: [String]] = [:]
    var inputs: [String: ManifestFile] = [:]
    /// Files written outside any unit (assets, static files, the sitemap): with every
    /// unit's file list, the site's files (the output tree keeps only their owners).
    var looseFiles: [ManifestFile] = []
    /// Inputs read and hashed in this build (not taken from their stamps).
    var inputsHashed = 0
    /// Absolute path → SHA-256 of the unit inputs digested so far in this build.
    var digested: [String: String] = [:]
    var report: BuildReport
    let lock = PlainLock()
    /// `project.root.path`, made once (``relativeInputPath(_:)`` needs it for every input).
    let rootPath: String

    init(project: Project, options: BuildOptions, log: BuildLog) {
        self.project = project
        self.rootPath = project.root.path
        self.options = options
        self.log = log
        let output = options.output ?? project.output
        self.output = output
        self.outputPath = output.path
        self.statePath = project.stateFolder.appendingPathComponent("state-\(output.lastPathComponent).bin")
        self.blobFolder = project.stateFolder.appendingPathComponent("units-\(output.lastPathComponent)")
        // A check keeps its units in the scratch folder, removed however the check ends.
        self.newBlobFolder = project.scratchFolder?.appendingPathComponent("units") ?? blobFolder
        self.newState = BuildState(dossier: DossierVersion.string, output: output.path, units: [:])
        self.report = BuildReport(output: output, manifest: project.outputManifestURL)
        // Section types are known from the manifest before any step runs.
        self.sectionTypes = project.sectionConfigs.compactMap { SectionRegistry.type(for: $0.key) }
    }

    // MARK: 1. Sections

    func loadSections() throws {
        var errors: [Diagnostic] = []
        for (cfg, type) in zip(project.sectionConfigs, sectionTypes) {
            do {
                let s = try type.init(config: cfg, project: project)
                for bad in cfg.unknownKeys() {
                    let message = KeySuggestion.unknownKey(bad.key, known: cfg.knownKeys())
                    errors.append(Diagnostic(file: cfg.file, line: bad.keyLine, "\(cfg.key): " + message))
                }
                sections.append(s)
            } catch {
                errors.append(contentsOf: error.diagnostics)
                let files = Set(error.diagnostics.compactMap(\.file)).subtracting([cfg.file])
                if !files.isEmpty { inputFailures.append((cfg.key, files.sorted())) }
                // a misspelt key is often why the block failed (a `pasword_file:`)
                for bad in cfg.unknownKeys() where !KeySuggestion.closest(to: bad.key, in: cfg.knownKeys()).isEmpty {
                    let message = KeySuggestion.unknownKey(bad.key, known: cfg.knownKeys())
                    errors.append(Diagnostic(file: cfg.file, line: bad.keyLine, "\(cfg.key): " + message))
                }
            }
        }
        if !errors.isEmpty { throw DossierError(errors) }
        PausePoint.reached("sections-read")     // (tests write an input here: debug builds only)
        log.detail("sections: \(sectionTypes.map { $0.key }.joined(separator: ", "))")
    }

    // MARK: 2. Templates

    func loadTemplates() throws {
        var folders: [URL] = []
        if FileManager.default.fileExists(atPath: project.templatesFolder.path) {
            try ProjectTemplates.check(project.templatesFolder, confinement: project.confinement)
            folders.append(project.templatesFolder)
        }
        do {
            templates = try TemplateSet(builtIn: try Resources.templates(), folders: folders)
        } catch let f as TemplateSet.Failure {
            throw DossierError(f.description)
        }
        for name in templates.overridden.sorted() { log.detail("template \(name) overridden by the project") }
        if !templates.overridden.isEmpty {
            for name in templates.overridden.sorted() {
                let url = project.templatesFolder.appendingPathComponent(name + ".mustache")
                recordInput(url)
            }
        }
    }

    // MARK: 3. Content

    func loadContent() throws {
        content = try ContentPage.loadAll(in: project.contentFolder, includeDrafts: options.drafts,
                                          confinement: project.confinement)
        contentMap = ContentLinks.map(content)
        let nav = Navigation.items(content: content, sections: sectionTypes.map { (key: $0.key, title: $0.title) })
        renderer = SiteRenderer(templates: templates, project: project, nav: nav)
        // Hashed on every core (the pages were read in parallel; 40 MB at 10,000 pages);
        // recordInput takes the lock. Each page read in place, by its position.
        let digests = withContentPages { pages in
            parallelMap(Array(pages.indices)) { [self] k -> String in
                // (The digest's words for the manifest, its hex for the cache key: the hex
                // is not parsed back into words, 3,000 instructions a page.)
                let digest = pages[k].raw.withUnsafeBytes { HexDigest(sha256: $0) }
                recordInput(pages[k], digest: digest)
                return digest.hex
            }
        }
        for k in content.indices { content[k].rawDigest = digests[k] }
        log.detail("\(content.count) content page\(content.count == 1 ? "" : "s")")
    }
}

/// A thread-safe counter for progress.
final class ProgressCounter: @unchecked Sendable {
    private var n = 0
    private let lock = PlainLock()
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
}
