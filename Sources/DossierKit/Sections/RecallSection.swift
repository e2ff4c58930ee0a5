#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render
import CompactBinary
import TextBasics

/// The `recall` section: glue between the RecallStudy core and the renderer.
///
/// ```yaml
/// recall:
///   strings: data/recall/strings.txt          # the 10 target strings (required), or
///   #  strings: {wave1: data/recall/w1.txt, wave2: data/recall/w2.txt}   # named sets, first = default
///   logs: data/recall/logs                    # folder, glob or list: *.jsonl native, *.csv desktop Raw Data
///   # database: postgres://study@db.example.org/study   # …or the study database's recall_logs (docs/store.md)
///   desktop_cohorts: data/recall/desktop.csv  # optional: Appendix B Rolled Up files
///   heatmap_rows: 150                         # optional: most participants drawn in the heatmap
/// ```
///
/// One unit per participant log (so changing one log rebuilds one participant) and one
/// per desktop cohort; the summary page is built from the units' small records.
/// See docs/recall-section.md.
public struct RecallSection: Section {
    public static let key = "recall"
    public static let title = "Memorization study"

    /// The string sets (one for `strings: FILE`), in manifest order.
    let setEntries: [RecallSets.Entry]
    let heatmapRows: Int
    /// The test kit, when `kit: true`.
    let kit: RecallKit?
    /// Unit id → file (its path: a `URL` per log held for the whole build was 0.4 KB a
    /// participant), in unit order, and as a dictionary.
    let slugs: [(id: String, path: String)]
    let pathOf: [String: String]
    /// Unit id → how messages and the study tables name its log, for logs read from a
    /// database (``RecallLogsFromDatabase``); a file is named by its project path.
    let shownOf: [String: String]
    /// For project-relative file names in messages and pages.
    let project: Project
    /// The string sets, read once per build (a section is made for each build): every
    /// participant used to read and parse the strings files again (0.7 % of a study build).
    let sets: StringSets
    /// The strings files' SHA-256 as parsed here, by path.
    public let inputsReadEarly: [String: String]

    public init(config: SectionConfig, project: Project) throws {
        self.project = project
        setEntries = try RecallSets.entries(config)
        // Validate the strings files now: a bad file is an error at its line.
        let (sets, digests) = try RecallSets.load(setEntries, project: project)
        self.sets = sets
        inputsReadEarly = digests
        let wantsKit = try config.bool("kit", default: false)
        for key in ["public_key", "kit_keep"] where !wantsKit && config.value(key) != nil {
            throw config.error(key, "\(key) needs kit: true")
        }
        let logs: [URL], cohorts: [URL]
        let database = try RecallLogsFromDatabase.location(config)
        var dbShown: [String] = []   // with a database: each log's name as shown, in `logs` order
        if let database {
            if config.value("logs") != nil { throw config.error("database", "give either logs or database, not both") }
            let read = try RecallLogsFromDatabase.read(database, project: project,
                                                       shown: RecallLogsFromDatabase.shown(database, project))
            logs = read.map { URL(fileURLWithPath: $0.path) }
            dbShown = read.map(\.shown)
        } else {
            do {
                logs = try config.paths("logs", extensions: ["jsonl", "csv"])
            } catch where wantsKit
                        && (try? config.strings("logs"))?.allSatisfy({ Self.isFolder(config.resolve($0)) }) == true {
                logs = []   // a kit study that has no logs yet
            }
        }
        cohorts = try config.paths("desktop_cohorts", extensions: ["csv"])
        heatmapRows = try config.int("heatmap_rows", default: 150, range: 1...100_000) ?? 150
        let upload = try RecallKit.uploadURL(config)
        if upload != nil && !wantsKit { throw config.error("kit_upload", "kit_upload needs kit: true") }
        if wantsKit {
            var k = RecallKit(sets: sets.sets.map { ($0.name, $0.strings) }, upload: upload)
            try k.readSealing(config)
            kit = k
        } else {
            kit = nil
        }
        if logs.isEmpty && cohorts.isEmpty && kit == nil && database == nil {
            throw config.error(nil, "name participant logs (`logs:`) or desktop cohorts (`desktop_cohorts:`)")
        }
        var seen: [String: String] = [:]
        var slugs: [(String, String)] = []
        var shownOf: [String: String] = [:]
        for (prefix, urls) in [("p-", logs), ("cohort-", cohorts)] {
            for (i, url) in urls.enumerated() {
                let fromDB = prefix == "p-" && !dbShown.isEmpty
                let shown = fromDB ? dbShown[i] : project.display(url)
                let stem = fromDB
                    ? RecallLogsFromDatabase.stem(dbShown[i]) : url.deletingPathExtension().lastPathComponent
                let id = prefix + Self.slug(stem)
                if let other = seen[id] {
                    throw config.error(prefix == "p-" ? (fromDB ? "database" : "logs") : "desktop_cohorts",
                                       "\(shown) and \(other) would share the page '\(id)'; rename one")
                }
                seen[id] = shown
                if fromDB { shownOf[id] = shown }
                slugs.append((id, url.path))
            }
        }
        self.slugs = slugs
        self.shownOf = shownOf
        pathOf = Dictionary(uniqueKeysWithValues: slugs)
    }

    /// The file of unit `id` (``pathOf``) as a URL.
    func url(of id: String) -> URL? { pathOf[id].map { URL(filePath: $0, directoryHint: .notDirectory) } }

    static func isFolder(_ url: URL) -> Bool {
        var dir = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &dir) && dir
    }

    /// A file name as a URL-safe folder name: every character outside
    /// `[A-Za-z0-9._-]` becomes `-` (one per Character), `log` for an empty name.
    static func slug(_ s: String) -> String {
        // Every log's slug is made at every build's set-up (5 % of a no-change build
        // at 2,000 logs through a Set of Characters): names already safe are kept as they are.
        if !s.isEmpty, s.utf8.allSatisfy(isSlugByte) { return s }
        return slugByCharacter(s)
    }

    /// The reference path of ``slug(_:)``, for names with any other character.
    static func slugByCharacter(_ s: String) -> String {
        let out = String(s.map { c in c.isASCII && c.utf8.count == 1 && isSlugByte(c.utf8.first!) ? c : "-" })
        return out.isEmpty ? "log" : out
    }

    static func isSlugByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
            || b == 0x2D || b == 0x5F || b == 0x2E
    }

    public func units() throws -> [SectionUnit] {
        let sets = setEntries.map(\.url.path)
        var units = slugs.map {
            var u = SectionUnit(id: $0.id, inputPaths: $0.id.hasPrefix("p-") ? [$0.path] + sets : [$0.path])
            // A native log is read once by its unit, which hands the bytes to the build's hash.
            u.readsOwnInput = $0.id.hasPrefix("p-") && !$0.path.lowercased().hasSuffix(".csv")
            return u
        }
        // The kit's public key file (its pages are built by the summary): no pages of its own.
        if let key = kit?.publicKeyPath { units.append(SectionUnit(id: "kit-key", inputPaths: [key])) }
        return units
    }

    func stringSets() throws -> StringSets { sets }

    // MARK: Units

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult {
        guard let url = url(of: unit.id) else { return UnitResult() }
        do {
            if unit.id.hasPrefix("cohort-") {
                return try buildCohort(id: unit.id, url: url)
            }
            return try buildParticipant(id: unit.id, url: url, context: context)
        } catch let e as RecallError {
            throw DossierError(file: e.file, line: e.line, column: e.column, e.message)
        }
    }

    func buildCohort(id: String, url: URL) throws -> UnitResult {
        let table = try DesktopCohort.load(url, display: project.display(url))
        let slug = String(id.dropFirst("cohort-".count))
        let record = RecallRecord(kind: "cohort", id: id, slug: slug, participant: nil, cohort: table)
        return UnitResult(files: [OutputFile(path: "recall/cohorts/\(slug).csv", data: RecallRender.csv(table.rows()))],
                          record: try JSONEncoder().encode(record))
    }

    func buildParticipant(id: String, url: URL, context: SectionContext) throws -> UnitResult {
        let shown = shownOf[id] ?? project.display(url)
        let log: SessionLog
        if url.pathExtension.lowercased() == "csv" {
            log = try DesktopRaw.load(url, display: shown)
        } else {
            guard let bytes = context.readOwnInput(pathOf[id] ?? url.path) else {
                throw DossierError(file: shown, "cannot read the session log")
            }
            log = try NativeLog.load(bytes: bytes, display: shown)
        }
        let set = try stringSets().resolve(log)
        let strings = set.strings
        let result = try Analyzer.analyze(log, strings: strings)
        try Identifier.check(result.participant, what: "participant id", file: shown, line: 1)
        let slug = String(id.dropFirst(2))
        let base = "recall/participants/\(slug)/"
        let rolled = RolledUp.table(result)
        // The CSV files start with the project's byte-order mark here, so the build's
        // `CSVWriter.withBOM` finds it and does not copy them to add it.
        let bom = project.csvBOM
        var files = [
            OutputFile(path: base + "raw.csv",
                       data: RecallRender.rawCSV(log: log, result: result, strings: strings, bom: bom)),
            OutputFile(path: base + "rolled-up.csv", data: RecallRender.csv(rolled, bom: bom)),
            OutputFile(path: base + "participant.json", data: result.jsonData()),
        ]
        files.append(OutputFile(path: base + "report.md", text: RecallReport.markdown(result, slug: slug)))
        let page = Page(path: base + "index.html", title: "Participant \(result.participant)",
                        template: "recall/participant", model: RecallReport.model(result, slug: slug),
                        styles: ["assets/recall/recall.css"], bodyClass: "recall")
        let study = StudyParticipant(summary: ParticipantSummary(result),
                                     detail: ParticipantDetail(result, strings: strings), sourceFile: shown)
        let warnings = result.warnings.map { Diagnostic.warning(file: $0.file, line: $0.line, $0.message) }
        // The record (kept in the build state) holds what the aggregates need; the rows
        // of the study-wide files go to the blob, on disk until the summary streams them.
        return UnitResult(pages: [page], files: files,
                          record: RecallRecord.participantData(slug: slug, set: set.name, study.summary,
                                                               study.contribution),
                          warnings: warnings, blob: RecallRowBlocks(study).encoded())
    }

    /// A participant's row blocks built again from its log: used when its stored blob
    /// cannot be read (deleted or damaged after the state was written).
    func rowBlocksFromLog(id: String) throws -> RecallRowBlocks {
        guard let url = url(of: id) else { throw DossierError("recall: no log for unit \(id)") }
        let shown = shownOf[id] ?? project.display(url)
        let log = url.pathExtension.lowercased() == "csv"
            ? try DesktopRaw.load(url, display: shown)
            : try NativeLog.load(url, display: shown)
        let strings = try stringSets().resolve(log).strings
        let result = try Analyzer.analyze(log, strings: strings)
        return RecallRowBlocks(StudyParticipant(summary: ParticipantSummary(result),
                                                detail: ParticipantDetail(result, strings: strings), sourceFile: shown))
    }

    // MARK: Summary

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult {
        let sets = try stringSets()
        // Each participant is folded into its set's aggregates as its record is decoded
        // and then dropped (``StudyAggregate``; a single-set study is the group ""): the
        // summary holds counts, packed entry times and a short row per participant, never
        // every decoded record. Likewise each set's dynamics key sequences
        // (``DynamicsKeyCounts``).
        var aggregates: [String: StudyAggregate] = [:]
        var keyCounts: [String: DynamicsKeyCounts] = [:]
        /// Per group, its participants' positions in `records` (unit order).
        var members: [String: [Int]] = [:]
        var cohorts: [(slug: String, table: CohortTable)] = []
        var warnings: [Diagnostic] = []
        var firstFile: [String: String] = [:]
        var count = 0, complete = 0
        // Records are small (no rows: those are in the blobs), read and decoded on every
        // core, a batch at a time (a batch's decoded records are 0.5 MB).
        for start in stride(from: 0, to: records.count, by: 128) {
            let batch = Array(records[start..<min(start + 128, records.count)])
            let decoded = parallelMap(batch) { r in Result { try RecallRecord.decode(r.data) } }
            for (k, d) in decoded.enumerated() {
                let rec = try d.get()
                if let p = rec.participant {
                    let group = sets.isSingle ? "" : (rec.set ?? sets.defaultSet.name)
                    guard let set = sets.isSingle ? sets.defaultSet : sets.named(group) else {
                        throw DossierError("recall: the build state holds a participant of string set \"\(group)\", "
                                           + "which the manifest no longer defines; run with --clean")
                    }
                    let c = rec.contribution ?? StudyContribution()
                    keyCounts[group, default: DynamicsKeyCounts()].add(c)
                    // (A dictionary lookup per participant: searching `slugs` for each was O(n²).)
                    let shown = shownOf["p-" + rec.slug] ?? url(of: "p-" + rec.slug).map(project.display)
                    aggregates[group, default: Self.emptyAggregate(set)]
                        .add(slug: rec.slug, p, c, sourceFile: shown ?? rec.slug)
                    members[group, default: []].append(start + k)
                    if let other = firstFile[p.participant] {
                        let message = "participant number \(p.participant) also appears in \(other); both are listed"
                        warnings.append(.warning(file: shown, message))
                    } else {
                        firstFile[p.participant] = shown ?? rec.slug
                    }
                    count += 1
                    if p.complete { complete += 1 }
                }
                if let c = rec.cohort { cohorts.append((rec.slug, c)) }
            }
        }
        var streamed: [(dir: String, members: [Int], keys: DynamicsKeyCounts)] = []
        var files: [OutputFile] = []
        var pages: [Page] = []
        if sets.isSingle {
            let set = sets.defaultSet
            let (page, out) = studySummary(set: set, dir: "recall/",
                                           aggregate: aggregates[""] ?? Self.emptyAggregate(set),
                                           cohorts: cohorts, setName: nil)
            pages.append(page); files += out
            streamed.append(("recall/", members[""] ?? [], keyCounts[""] ?? DynamicsKeyCounts()))
        } else {
            // One full summary per set under recall/sets/NAME/, and an index of the sets.
            var rows: [String: [StudyAggregate.Row]] = [:]
            for set in sets.sets {
                let a = aggregates[set.name] ?? Self.emptyAggregate(set)
                let (page, out) = studySummary(set: set, dir: "recall/sets/\(set.name)/", aggregate: a,
                                               cohorts: cohorts, setName: set.name)
                pages.append(page); files += out
                rows[set.name] = a.rows
                streamed.append(("recall/sets/\(set.name)/", members[set.name] ?? [],
                                 keyCounts[set.name] ?? DynamicsKeyCounts()))
            }
            let table = StudyTables.sets(sets, rows)
            files.append(OutputFile(path: "recall/sets.csv", data: RecallRender.csv(table)))
            files.append(OutputFile(path: "recall/sets.json", data: RecallStudyFiles.json(table)))
            let model = RecallSets.indexModel(sets, rows, cohorts: cohorts.count,
                                              kitSet: kit == nil ? nil : sets.defaultSet.name)
            pages.append(Page(path: "recall/index.html", title: Self.title, template: "recall/sets",
                              model: model, styles: ["assets/recall/recall.css"], bodyClass: "recall"))
        }
        if let kit { files += try kit.files() }
        let blurb = "\(count) participant\(count == 1 ? "" : "s") (\(complete) complete)"
            + (cohorts.isEmpty ? "" : " and \(cohorts.count) desktop cohort\(cohorts.count == 1 ? "" : "s")")
            + " of the character-string memorization test."
        let groups = streamed
        return UnitResult(pages: pages, files: files, warnings: warnings, blurb: blurb, streams: { [self] sink in
            for group in groups {
                try RecallStudyFiles.stream(count: group.members.count, keys: group.keys, blocks: { k in
                    let r = records[group.members[k]]
                    return try blocks(r.blob, id: r.id)
                }, dir: group.dir, to: sink)
            }
        })
    }

    /// A set's aggregates before any participant (its Appendix B table is "This study").
    static func emptyAggregate(_ set: StringSets.Named) -> StudyAggregate {
        StudyAggregate(name: "This study", strings: set.strings)
    }

    /// A participant's stored row blocks, or (blob missing or damaged) built again from its log.
    func blocks(_ blob: URL?, id: String) throws -> RecallRowBlocks {
        if let blob, let data = FileManager.default.contents(atPath: blob.path), let b = RecallRowBlocks.decode(data) {
            return b
        }
        return try rowBlocksFromLog(id: id)
    }

    /// One set's summary page, data files and summary.md in `dir`; `setName` nil for a
    /// single-set project (whose page is `recall/index.html`, as before sets existed).
    func studySummary(set: StringSets.Named, dir: String, aggregate: StudyAggregate,
                      cohorts: [(slug: String, table: CohortTable)], setName: String?) -> (Page, [OutputFile]) {
        let strings = set.strings
        var files = RecallStudyFiles.aggregateFiles(strings: strings, aggregate: aggregate, dir: dir)
        var model = RecallStudyPage.model(strings: strings, aggregate: aggregate, cohorts: cohorts,
                                          heatmapRows: heatmapRows)
        model.hasKit = kit != nil
        if let setName {
            model.setName = setName
            model.up = "../../"
        }
        let markdown = RecallStudyPage.markdown(strings: strings, study: aggregate.appendixB, cohorts: cohorts)
        files.append(OutputFile(path: dir + "summary.md", text: markdown))
        var page = Page(path: dir + "index.html", title: setName.map { "\(Self.title): set \($0)" } ?? Self.title,
                        template: "recall/summary", model: model, styles: ["assets/recall/recall.css"],
                        bodyClass: "recall")
        if !aggregate.rows.isEmpty {
            page.splice = RecallStudyPage.participantsSplice(aggregate.rows, up: setName == nil ? "" : "../../")
        }
        return (page, files)
    }
}
