import Escaping
import Foundation
import Render

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
/// 1. Read dossier.yml  2. Load templates  3. Read content pages  4. Plan (hash inputs)
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
        let project = try Project.load(folder)
        let ctx = BuildContext(project: project, options: options, log: log)

        var steps: [Step] = [
            ("Read dossier.yml", { try $0.loadSections() }),
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
                log.detail(String(format: "took %.3f s", Date().timeIntervalSince(began)))
            } catch {
                ctx.tree?.discard()
                var diags = error.diagnostics
                diags.append(Diagnostic(.note, file: nil, line: nil,
                    "build failed at step [\(i + 1)/\(steps.count)] \(step.name); " + (options.checkOnly ? "nothing was written" : "the previous site is unchanged")))
                throw DossierError(diags)
            }
        }
        var report = ctx.report
        report.seconds = Date().timeIntervalSince(start)
        let shown = project.display(report.output)
        log.info("Done: \(report.pagesRendered) page\(report.pagesRendered == 1 ? "" : "s") rendered, \(report.pagesReused) unchanged; \(report.files) files"
                 + (options.checkOnly ? " checked (nothing written)" : " in \(shown)")
                 + String(format: " (%.2f s)", report.seconds)
                 + (report.warnings.isEmpty ? "" : "; \(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s")"))
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
    /// Pages of units built (not reused) in this build: their links are always checked.
    var freshPages: Set<String> = []

    var sectionTypes: [any Section.Type] = []
    var sections: [any Section] = []
    var templates: TemplateSet!
    var renderer: SiteRenderer!
    var content: [ContentPage] = []
    /// ``ContentLinks/map(_:)`` of `content`, set with it.
    var contentMap: [String: String] = [:]
    var tree: OutputTree?
    var previous: BuildState?
    var newState: BuildState
    /// This build's record spill file (``recordSpill()``) and the link texts and lists seen
    /// so far (``interned(_:)``): see BuildMemory.swift.
    var spill: RecordSpill?
    var linkTexts = Set<String>()
    var linkLists = Set<[String]>()
    var planned: [[PlannedUnit]] = []
    var blurbs: [String: String] = [:]
    var links: [String: [String]] = [:]
    var inputs: [String: ManifestFile] = [:]
    /// Files written outside any unit (assets, static files, the sitemap): with every
    /// unit's file list, the site's files (the output tree keeps only their owners).
    var looseFiles: [ManifestFile] = []
    /// Inputs read and hashed in this build (not taken from their stamps).
    var inputsHashed = 0
    /// Absolute path → SHA-256 of the unit inputs digested so far in this build.
    var digested: [String: String] = [:]
    var report: BuildReport
    let lock = NSLock()

    init(project: Project, options: BuildOptions, log: BuildLog) {
        self.project = project
        self.options = options
        self.log = log
        let output = options.output ?? project.output
        self.output = output
        self.outputPath = output.path
        self.statePath = project.stateFolder.appendingPathComponent("state-\(output.lastPathComponent).bin")
        self.blobFolder = project.stateFolder.appendingPathComponent("units-\(output.lastPathComponent)")
        self.newBlobFolder = options.checkOnly
            ? FileManager.default.temporaryDirectory.appendingPathComponent("dossier-check-units-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            : blobFolder
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
                    errors.append(Diagnostic(file: cfg.file, line: bad.keyLine, "\(cfg.key): unknown key '\(bad.key)'"))
                }
                sections.append(s)
            } catch {
                errors.append(contentsOf: error.diagnostics)
            }
        }
        if !errors.isEmpty { throw DossierError(errors) }
        log.detail("sections: \(sectionTypes.map { $0.key }.joined(separator: ", "))")
    }

    // MARK: 2. Templates

    func loadTemplates() throws {
        var folders: [URL] = []
        if FileManager.default.fileExists(atPath: project.templatesFolder.path) { folders.append(project.templatesFolder) }
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
        content = try ContentPage.loadAll(in: project.contentFolder, includeDrafts: options.drafts)
        contentMap = ContentLinks.map(content)
        var nav: [NavItem] = [NavItem(title: "Home", path: "index.html", kind: "home")]
        let top = content.filter { !$0.isHome && $0.outputPath.split(separator: "/").count == 2 }
            .sorted { ($0.weight, $0.title, $0.relative) < ($1.weight, $1.title, $1.relative) }
        nav += top.map { NavItem(title: $0.title, path: $0.outputPath, kind: "page") }
        nav += sectionTypes.map { NavItem(title: $0.title, path: "\($0.key)/index.html", kind: $0.key) }
        renderer = SiteRenderer(templates: templates, project: project, nav: nav)
        // Hashed on every core (the pages were read in parallel; 40 MB at 10,000 pages);
        // recordInput takes the lock.
        _ = parallelMap(content) { [self] p in recordInput(p.source, data: p.raw) }
        log.detail("\(content.count) content page\(content.count == 1 ? "" : "s")")
    }

    // MARK: 4. Plan

    struct PlannedUnit: @unchecked Sendable {
        var key: String
        var unit: SectionUnit
        var hash: String
        /// Whether the previous build's unit (`previous.units[key]`) is reused: a flag, not a
        /// copy of it (held for the whole build, 0.1 KB a unit even when nil).
        var reused: Bool
    }

    func plan() throws {
        if !options.clean { previous = BuildState.load(statePath, output: output) }
        if previous == nil { log.detail("no usable previous build: full build") }
        if options.output == nil {
            try OutputFolder.checkOwned(output, manifest: project.outputManifestURL, state: statePath,
                                         file: SitePaths.display(project.manifestURL), line: project.outputLine)
        }
        if !options.checkOnly {
            for name in StagingDebris.sweep(beside: output) { log.detail("removed \(name), left by a build that was stopped") }
        }
        let staging: URL
        if options.checkOnly {
            staging = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        } else {
            staging = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).staging-\(getpid())")
        }
        // Patch the live site in place when the previous build's file list is known
        // and the site is still there (see OutputTree); else build a whole new tree.
        if !options.checkOnly, let prev = previous, !prev.site.isEmpty,
           FileManager.default.fileExists(atPath: output.appendingPathComponent("index.html").path) {
            tree = try OutputTree(staging: staging, patching: output, liveFiles: prev.site)
            log.detail("incremental: changed files replace their live copies")
        } else {
            tree = try OutputTree(staging: staging)
        }
        let fp = renderer.fingerprint
        for (cfg, section) in zip(project.sectionConfigs, sections) {
            let key = type(of: section).key
            let units = try section.units()
            var seen = Set<String>()
            var list: [PlannedUnit] = []
            list.reserveCapacity(units.count)       // (held for the whole build: no spare room)
            for u in units {
                guard seen.insert(u.id).inserted else { throw DossierError("section \(key): two units share the id '\(u.id)'") }
            }
            // Inputs are read and hashed once each, on every core (the largest cost of an
            // incremental build of a big study).
            let canonical = cfg.node.canonical
            let hashes: [Result<String, Error>] = parallelMap(units) { [self] u in
                Result {
                    var h = Hashing.Key()
                    h.add(fp); h.add(key); h.add(canonical); h.add(u.id); h.add(u.salt)
                    for path in u.inputPaths {
                        let digest = try inputDigestOnce(path)
                        h.add(Self.lastPathComponent(path))
                        h.add(digest)
                    }
                    return h.finalize()
                }
            }
            for (u, result) in zip(units, hashes) {
                let hash = try result.get()
                let unitKey = "\(key)/\(u.id)"
                list.append(PlannedUnit(key: unitKey, unit: u, hash: hash, reused: reusable(unitKey, hash) != nil))
            }
            planned.append(list)
        }
        digested = [:]          // (planning's alone: 2,000 paths and digests a study)
        let total = planned.reduce(0) { $0 + $1.count }
        let reuse = planned.reduce(0) { $0 + $1.filter(\.reused).count }
        log.detail("\(total) unit\(total == 1 ? "" : "s"), \(reuse) unchanged")
    }

    /// A unit input's SHA-256, recorded as an input of the build. An input many units
    /// share (a study's strings file, an input of each of 2,000 participants) is
    /// stamped, hashed and recorded once per build, not once per unit.
    /// (`path` is the unit's own text, ``SectionUnit/inputPaths``: the state's stamp is
    /// keyed by it, not by a copy.)
    func inputDigestOnce(_ path: String) throws -> String {
        lock.lock(); let known = digested[path]; lock.unlock()
        if let known { return known }
        let input = URL(filePath: path, directoryHint: .notDirectory)
        let (digest, size) = try inputDigest(input, path: path)
        recordInput(input, sha256: digest, size: size)
        lock.lock(); digested[path] = digest; lock.unlock()
        return digest
    }

    /// SHA-256 and size of a unit's input: from the previous build's stamp when the file
    /// is provably unchanged (``BuildState/InputStamp``), else read and hashed.
    /// (`path` is `input.path`, made once: the same text keys `digested` and the state's
    /// stamps rather than two copies of it per input.)
    func inputDigest(_ input: URL, path: String) throws -> (String, Int) {
        let before = BuildState.InputStamp.current(path)
        if let old = previous?.inputs[path], let now = before, old.stillValid(now) {
            var kept = now
            kept.sha256 = old.sha256
            kept.takenAt = old.takenAt
            lock.lock(); newState.inputs[path] = kept; lock.unlock()
            return (old.sha256.hex, Int(old.size))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DossierError(file: project.display(input), "cannot read input file")
        }
        lock.lock(); inputsHashed += 1; lock.unlock()
        let digest = Hashing.sha256(data)
        // Stamped only if the file did not change while it was read.
        if var stamp = before, let after = BuildState.InputStamp.current(path),
           stamp.size == after.size, stamp.mtime == after.mtime, stamp.ctime == after.ctime, stamp.size == Int64(data.count) {
            stamp.sha256 = HexDigest(digest)
            lock.lock(); newState.inputs[path] = stamp; lock.unlock()
        }
        return (digest, data.count)
    }

    /// The previous build's unit if its hash matches and its files are still there.
    func reusable(_ key: String, _ hash: String) -> BuildState.Unit? {
        guard let prev = previous?.units[key], prev.hash == hash else { return nil }
        for f in prev.files where access(outputPath + "/" + f.path, F_OK) != 0 {
            return nil
        }
        // A blob that is gone or not its recorded size: build the unit again.
        if let size = prev.blobSize {
            var st = stat()
            guard stat(blobURL(hash).path, &st) == 0, Int64(st.st_size) == size else { return nil }
        }
        return prev
    }

    func recordInput(_ url: URL, data: Data? = nil) {
        guard let d = data ?? FileManager.default.contents(atPath: url.path) else { return }
        recordInput(url, sha256: Hashing.sha256(d), size: d.count)
    }

    func recordInput(_ url: URL, sha256: String, size: Int) {
        let rel = relativeInputPath(url)
        let entry = ManifestFile(path: rel, sha256: sha256, size: Int64(size))
        lock.lock(); inputs[rel] = entry; lock.unlock()
    }

    func relativeInputPath(_ url: URL) -> String {
        // (A path without `.` or empty segments is its standardized form: no second URL.)
        let given = url.path
        let p = given.contains("/.") || given.contains("//") ? url.standardizedFileURL.path : given
        let r = project.root.path
        return p.hasPrefix(r + "/") ? String(p.dropFirst(r.count + 1)) : p
    }

    /// `URL(filePath: path).lastPathComponent` of a file's path, without making the URL.
    static func lastPathComponent(_ path: String) -> String {
        guard !path.hasSuffix("/"), let slash = path.utf8.lastIndex(of: 0x2F) else {
            return URL(filePath: path, directoryHint: .notDirectory).lastPathComponent
        }
        return String(path[path.utf8.index(after: slash)...])
    }

    // MARK: 5. Sections

    func buildSection(_ index: Int) async throws {
        let section = sections[index]
        let key = type(of: section).key
        let units = planned[index]
        let context = SectionContext(project: project, templates: templates, checkOnly: options.checkOnly)
        let done = ProgressCounter()
        let total = units.count
        let results: [(String, BuildState.Unit)] = try await concurrentMap(units) { [self] pu in
            let r: BuildState.Unit
            if pu.reused, let prev = previous?.units[pu.key] {
                try reuse(prev, owner: pu.key)
                r = prev
            } else {
                let result = try await section.build(unit: pu.unit, context: context)
                r = try write(result, hash: pu.hash, owner: pu.key)
            }
            log.progress(done.increment(), of: total, label: key)
            return (pu.key, r)
        }
        var records: [UnitRecord] = []
        records.reserveCapacity(units.count)
        for ((k, r), pu) in zip(results, units) {
            store(k, r, reused: pu.reused)
            if let rec = r.record {
                let folder = r.blobSize == nil ? nil : (pu.reused ? blobFolder : newBlobFolder)
                records.append(UnitRecord(id: pu.unit.id, stored: rec, folder: folder, name: r.hash))
            }
        }
        // The summary: rebuilt only when some unit or the configuration changed.
        var h = Hashing.Key()
        h.add(renderer.fingerprint); h.add(key); h.add(project.sectionConfigs[index].node.canonical)
        for pu in units { h.add(pu.key); h.add(pu.hash) }
        let sumKey = "\(key)/#summary"
        let sumHash = h.finalize()
        if let prev = reusable(sumKey, sumHash) {
            try reuse(prev, owner: sumKey)
            store(sumKey, prev, reused: true)
            blurbs[key] = prev.blurb
        } else {
            let result = try await section.summarize(records: records, context: context)
            let r = try write(result, hash: sumHash, owner: sumKey)
            store(sumKey, r, reused: false)
            blurbs[key] = result.blurb
        }
        guard tree!.contains("\(key)/index.html") else {
            throw DossierError("section \(key) produced no \(key)/index.html page")
        }
    }

    func reuse(_ prev: BuildState.Unit, owner: String) throws {
        for f in prev.files { try tree!.reuse(f, from: output, owner: owner) }
    }

    func write(_ result: UnitResult, hash: String, owner: String) throws -> BuildState.Unit {
        var files: [ManifestFile] = []
        files.reserveCapacity(result.pages.count + result.files.count)   // (kept in the state: no spare room)
        var links: [String: [String]] = [:]
        for page in result.pages {
            let html = try renderer.render(page)
            if let splice = page.splice {
                let (file, found) = try writeSpliced(html, splice, to: page.path, owner: owner)
                files.append(file)
                links[file.path] = interned(found)
                continue
            }
            // (Keyed by the entry's path: the tree keeps it in storage of its own size.)
            let file = try tree!.write(html, to: page.path, owner: owner)
            files.append(file)
            links[file.path] = interned(LinkChecker.links(in: html))
        }
        for f in result.files {
            let file = try tree!.write(CSVWriter.withBOM(f.data, f.path.hasSuffix(".csv") && project.csvBOM), to: f.path, owner: owner)
            files.append(file)
            if f.path.hasSuffix(".html") { links[file.path] = LinkChecker.links(in: String(decoding: f.data, as: UTF8.self)) }
        }
        if let streams = result.streams {
            let sink = OutputStreams(tree: tree!, owner: owner, csvBOM: project.csvBOM)
            try streams(sink)
            files += sink.written
        }
        // The blob is named by the unit's hash: a unit with the same inputs writes the
        // same bytes, and the state that names it is saved only after it is in place.
        if let blob = result.blob {
            // Made on first use: a project whose units leave no blobs gets no folder.
            try FileManager.default.createDirectory(at: newBlobFolder, withIntermediateDirectories: true)
            try AtomicFile.write(blob, to: newBlobFolder.appending(path: hash, directoryHint: .notDirectory), sync: false)
        }
        // Records wait for the summary and the state in a file, not in memory.
        let record = try result.record.map { try recordSpill().keep($0) }
        return BuildState.Unit(hash: hash, files: files, links: links, record: record, warnings: result.warnings,
                               pages: result.pages.count, blurb: result.blurb, blobSize: result.blob.map { Int64($0.count) })
    }

    func store(_ key: String, _ unit: BuildState.Unit, reused: Bool) {
        lock.lock(); defer { lock.unlock() }
        newState.units[key] = unit
        for (p, l) in unit.links {
            links[p] = l
            if !reused { freshPages.insert(p) }
        }
        if reused { report.pagesReused += unit.pages; report.unitsReused += 1 }
        else { report.pagesRendered += unit.pages; report.unitsBuilt += 1 }
        for w in unit.warnings {
            report.warnings.append(w)
            log.warning(w)
        }
    }

    // MARK: 6. Content pages and home

    func renderContent() async throws {
        let fp = renderer.fingerprint
        let pages = content.filter { !$0.isHome }
        let results: [(String, BuildState.Unit, Bool)] = try await concurrentMap(pages) { [self] page in
            var h = Hashing.Key()
            h.add(fp); h.add(page.relative); h.add(page.raw)
            let key = "content/\(page.relative)"
            let hash = h.finalize()
            if let prev = reusable(key, hash) {
                try reuse(prev, owner: key)
                return (key, prev, true)
            }
            return (key, try write(UnitResult(pages: [contentPage(page)]), hash: hash, owner: key), false)
        }
        for (k, u, reused) in results { store(k, u, reused: reused) }

        // Home: the optional content/index.md, every section and every page.
        let home = content.first { $0.isHome }
        var h = Hashing.Key()
        h.add(fp); h.add(home?.raw ?? Data())
        for s in sectionTypes { h.add(s.key); h.add(blurbs[s.key] ?? "") }
        for p in pages { h.add(p.outputPath); h.add(p.title); h.add(p.summary) }
        let hash = h.finalize()
        if let prev = reusable("#home", hash) {
            try reuse(prev, owner: "#home")
            store("#home", prev, reused: true)
        } else {
            let intro = home.map { Markdown.render($0.body, options: project.markdownOptions) }
            let model = HomeModel(
                intro: home.map { ContentLinks.rewrite(intro!.html, from: $0, map: contentMap) },
                description: project.description,
                sections: sectionTypes.map {
                    HomeModel.SectionCard(title: $0.title, href: "\($0.key)/index.html", blurb: blurbs[$0.key] ?? "")
                },
                pages: pages.sorted { ($0.weight, $0.title) < ($1.weight, $1.title) }.map {
                    HomeModel.PageLink(title: $0.title, href: $0.outputPath, summary: $0.summary)
                })
            let page = Page(path: "index.html", title: home?.title ?? project.title, template: "home", model: model,
                            toc: intro?.toc ?? [], bodyClass: "home")
            store("#home", try write(UnitResult(pages: [page]), hash: hash, owner: "#home"), reused: false)
        }
    }

    func contentPage(_ page: ContentPage) -> Page {
        let md = Markdown.render(page.body, options: project.markdownOptions)
        let html = ContentLinks.rewrite(md.html, from: page, map: contentMap)
        let showTOC = page.toc ?? (md.toc.filter { $0.level >= 2 }.count >= 2)
        return Page(path: page.outputPath, title: page.title, template: "page",
                    model: ContentPageModel(content: html, summary: page.summary, source: page.relative),
                    toc: showTOC ? md.toc : [], bodyClass: "content")
    }

    // MARK: 7. Assets

    func copyAssets() throws {
        // Site/*.css etc. always; Site/<key>/ only for sections this project uses.
        let used = Set(sectionTypes.map { $0.key })
        let known = SectionRegistry.keys
        for file in try Resources.files(in: "Site") {
            if file.path.contains("/"), case let first = String(file.path.split(separator: "/")[0]),
               known.contains(first), !used.contains(first) { continue }
            if tree!.contains("assets/" + file.path) {
                throw DossierError("\(file.origin) would overwrite the generated assets/\(file.path)")
            }
            looseFiles.append(try tree!.write(file.data, to: "assets/" + file.path, owner: "assets"))
        }
        if FileManager.default.fileExists(atPath: project.staticFolder.path) {
            try copyTree(project.staticFolder, prefix: "", owner: "static", isInput: true)
        }
    }

    func copyTree(_ folder: URL, prefix: String, owner: String, isInput: Bool = false,
                  include: (String) -> Bool = { _ in true }) throws {
        let fm = FileManager.default
        guard let e = fm.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]) else { return }
        let base = folder.standardizedFileURL.path
        var files: [URL] = []
        for case let url as URL in e {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        for url in files.sorted(by: { $0.path < $1.path }) {
            let rel = String(url.standardizedFileURL.path.dropFirst(base.count + 1))
            if rel.contains("/"), !include(String(rel.split(separator: "/")[0])) { continue }
            if tree!.contains(prefix + rel) {
                throw DossierError(file: project.display(url), "would overwrite the generated \(prefix + rel)")
            }
            let entry = try tree!.copy(url, to: prefix + rel, owner: owner)
            looseFiles.append(entry)
            if isInput { lock.lock(); inputs[relativeInputPath(url)] = ManifestFile(path: relativeInputPath(url), digest: entry.digest, size: entry.size); lock.unlock() }
            if rel.hasSuffix(".html"), let d = fm.contents(atPath: url.path) {
                links[prefix + rel] = LinkChecker.links(in: String(decoding: d, as: UTF8.self))
                freshPages.insert(prefix + rel)
            }
        }
    }

    // MARK: 8. Links

    func checkLinks() throws {
        let files = tree!.paths
        var errors: [Diagnostic] = []
        // Patching a site that lost no file: the reused pages' links resolved in the
        // previous build and every file they could point to is still there, so only
        // rebuilt pages (and copied HTML) need checking.
        let onlyFresh = tree!.patchTarget != nil && !tree!.removesLiveFiles(except: ["sitemap.xml"])
        let toCheck = onlyFresh ? links.keys.filter { freshPages.contains($0) } : Array(links.keys)
        if onlyFresh { log.detail("links of \(links.count - toCheck.count) unchanged pages still resolve (no file was removed)") }
        // Resolved on every core (90,000 links at 10,000 pages); reported in page order.
        let pages = toCheck.sorted()
        let found = parallelMap(pages) { [links] page in
            (dangling: LinkChecker.dangling(links[page]!, on: page, files: files), unsafe: LinkChecker.unsafe(links[page]!))
        }
        for (page, bad) in zip(pages, found) where !bad.dangling.isEmpty || !bad.unsafe.isEmpty {
            for link in bad.dangling {
                errors.append(locate(link: link, page: page))
            }
            for link in bad.unsafe {
                var d = locate(link: link, page: page)
                d.message = "link '\(ControlCharacters.visible(link))' on page \(page) has a script or local-file scheme; pages may only link to relative paths and http(s) URLs"
                errors.append(d)
            }
        }
        if !errors.isEmpty { throw DossierError(errors) }
        log.detail("\(links.values.reduce(0) { $0 + $1.count }) links on \(links.count) pages, all resolve")
    }

    /// Where a dangling link came from: the content file and line that wrote it, else the page.
    func locate(link: String, page: String) -> Diagnostic {
        if let cp = content.first(where: { $0.outputPath == page }) {
            let text = String(decoding: cp.raw, as: UTF8.self)
            // cmark percent-encodes destinations (non-ASCII, quotes, braces): look for
            // the decoded form too.
            let forms = [link, link.removingPercentEncoding].compactMap { $0 }
            var line: Int? = nil
            for (i, l) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where forms.contains(where: { l.contains($0) }) {
                line = i + 1; break
            }
            return Diagnostic(file: project.display(cp.source), line: line, "dangling link '\(link)' (on page \(page))")
        }
        return Diagnostic(file: page, line: nil, "dangling link '\(link)' in the generated page")
    }

    // MARK: 9. Write

    func finish() throws {
        var all = siteFiles()
        // sitemap.xml: every HTML page, sorted.
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
        for f in all where f.path.hasSuffix(".html") && !f.path.hasPrefix("assets/") {
            let path = f.path.hasSuffix("index.html") ? String(f.path.dropLast("index.html".count)) : f.path
            xml += "  <url><loc>\(HTML.escape(project.baseURL + path))</loc></url>\n"
        }
        xml += "</urlset>\n"
        let sitemap = try tree!.write(Data(xml.utf8), to: "sitemap.xml", owner: "sitemap")
        // The sorted list once more with the sitemap in its place (not sorted again:
        // 10,000 paths at 2,000 participants).
        all.insert(sitemap, at: all.firstIndex { !($0.path < sitemap.path) } ?? all.count)
        report.files = all.count
        if options.checkOnly {
            tree!.discard()
            try? FileManager.default.removeItem(at: newBlobFolder)
            return
        }
        recordInput(project.manifestURL)
        let manifest = SiteManifest(files: all, inputs: inputs.values.sorted { $0.path < $1.path })
        newState.site = all
        let keepState = stateUnchanged()
        if tree!.patchTarget != nil {
            log.detail("\(tree!.writtenCount) changed file\(tree!.writtenCount == 1 ? "" : "s") written")
            // Should the patch be interrupted, the next build must not trust this state
            // (a patch that changes nothing keeps it: it describes the site before and after).
            if !keepState { try? FileManager.default.removeItem(at: statePath) }
        }
        // A first build: the manifest (Dossier's mark on the folder, see OutputFolder)
        // exists before the folder does, so a kill between the two never leaves an
        // output folder the next build would refuse as not its own.
        let fresh = !FileManager.default.fileExists(atPath: output.path)
        let manifestURL = options.output == nil ? project.outputManifestURL
            : output.deletingLastPathComponent().appendingPathComponent(output.lastPathComponent + ".manifest.json")
        if fresh { try writeManifest(manifest, to: manifestURL) }
        try tree!.commit(to: output)
        // Not fsynced: like every output file it is derived and rewritten by each build;
        // the rename still means a reader sees the old manifest or the new one, never half.
        // A manifest equal byte for byte to the one on disk is left as it is: no new
        // file, no rename. Only a patch that wrote no file can leave it equal often
        // enough to be worth comparing (its inputs may still have changed).
        if !fresh, !(tree!.patchTarget != nil && tree!.writtenCount == 0 && manifestOnDisk(equals: manifest, at: manifestURL)) {
            try writeManifest(manifest, to: manifestURL)
        }
        report.manifest = manifestURL
        if keepState {
            log.detail("nothing changed: the build state is kept as it is")
        } else {
            try FileManager.default.createDirectory(at: project.stateFolder, withIntermediateDirectories: true)
            try newState.save(statePath)
        }
        sweepBlobs()
    }

    /// Whether the new state would be byte for byte the previous one, so saving it can be
    /// skipped (its encoding and write were a fifth of a no-change build at 2,000
    /// participants): a patch in which every unit was reused (so every unit is the
    /// previous one, under the same key, when the counts agree), every input's SHA-256
    /// came from its stamp (so every stamp is the previous one, under the same path,
    /// when the counts agree) and the site's file list is the previous one.
    func stateUnchanged() -> Bool {
        guard let prev = previous, tree!.patchTarget != nil, report.unitsBuilt == 0, inputsHashed == 0,
              newState.units.count == prev.units.count, newState.inputs.count == prev.inputs.count,
              newState.dossier == prev.dossier, newState.output == prev.output,
              FileManager.default.fileExists(atPath: statePath.path) else { return false }
        return newState.site == prev.site
    }

    /// Every file of the site so far, sorted by path: each unit's and the loose ones (room
    /// for the sitemap, inserted in place, not into a copy).
    func siteFiles() -> [ManifestFile] {
        var all: [ManifestFile] = []
        all.reserveCapacity(newState.units.values.reduce(looseFiles.count + 1) { $0 + $1.files.count })
        for u in newState.units.values { all += u.files }
        all += looseFiles
        all.sort { $0.path < $1.path }
        return all
    }

    /// The stored blob of the unit whose hash is `hash`. (A blob is a file: the hint
    /// spares `appendingPathComponent`'s `stat`, 12 µs a call, 2,000 calls a build.)
    func blobURL(_ hash: String) -> URL { blobFolder.appending(path: hash, directoryHint: .notDirectory) }

    /// Removes blobs no unit of the saved state names (units rebuilt or gone, temp files
    /// of killed builds). Runs after the state is saved: a kill before leaves extra
    /// files, never a state naming a missing blob (and a missing one rebuilds its unit).
    func sweepBlobs() {
        let kept = Set(newState.units.values.compactMap { $0.blobSize == nil ? nil : $0.hash })
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: blobFolder.path) else { return }
        for name in names where !kept.contains(name) {
            unlink(blobFolder.path + "/" + name)
        }
    }
}

/// A thread-safe counter for progress.
final class ProgressCounter: @unchecked Sendable {
    private var n = 0
    private let lock = NSLock()
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
}
