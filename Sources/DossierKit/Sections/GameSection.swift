import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import GameAnalytics
import Render
import StudyStore
import TextBasics

/// The `game` section: RocketMouse telemetry → an aggregate-only cohort summary (the
/// default, publishable site) or, for a site that is never published, per-player pages.
///
/// ```yaml
/// game:
///   telemetry: data/game/cohort.jsonl   # JSON Lines files, folders or globs
///   # database: data/game/study.sqlite  # …or the study server's SQLite database,
///   # database: postgres://study@db.example.org/study   # …or PostgreSQL (docs/store.md)
///   C: 1.0                               # inverse L2 penalty (scikit-learn's C)
///   folds: 5                             # stratified cross-validation folds
///   simulated: true                      # say "The cohort is simulated" (only when it is)
///   private_site: false                  # true: per-player pages and player-level CSVs;
///                                        # `dossier publish` then refuses unless forced
///   kit: true                            # the game page game/play/ (docs/game-kit.md), with
///   public_key: keys/study.pub           #   the study public key it seals uploads to
///   kit_upload: https://dav.example.org/drop/   # optional WebDAV drop it PUTs them to
///   privacy: {epsilon: 6, delta: 0}      # the public site's differential privacy
///                                        # (docs/game-privacy.md; not for a private site)
/// ```
///
/// With a database, every player whose device sent a result key gets their result
/// encrypted under it in `game/results/<name>.rmr` (docs/game-telemetry.md); on the public
/// site among decoys, `results_capacity` files of one size in all (``GameResultFiles``). With
/// `kit: true` the database may not exist yet (no game ingested): the site then has the
/// game page and a cohort page saying no player has sent a game yet.
///
/// **One unit for the whole cohort.** Norms, the model and every player's likelihood
/// depend on every player, so a change to any input changes every page; splitting into
/// per-player units would only pretend to be incremental. The single unit is skipped when
/// no input byte and no option changed (docs/game-measures.md, "Incremental builds").
public struct GameSection: Section {
    public static let key = "game"
    public static let title = "Game analytics"

    // The declarations open as RecallSection's do (`duplicates` pairs them): the Section
    // protocol's key and title, then each section's own settings.
    let files: [URL]
    let database: URL?
    /// Where the study database is (a SQLite `database` above, or PostgreSQL), nil for telemetry files.
    let store: StoreLocation?
    let options: AnalysisOptions
    let project: Project
    /// Per-player pages and player-level files (never for a published site).
    let privateSite: Bool
    /// Whether the cohort is simulated (the wording says so only then).
    let simulated: Bool
    /// The game page, when `kit: true` (docs/game-kit.md).
    let kit: GameKit?
    /// `kit: true` and `database` names a file that does not exist yet: no game so far.
    let awaitingFirstGame: Bool
    /// The public site's privacy settings and key (nil for a private site).
    let privacy: GamePrivacySettings?
    /// How many result files a public site from a database holds (``GameResultFiles``).
    let resultsCapacity: Int

    public init(config: SectionConfig, project: Project) throws {
        self.project = project
        kit = try GameKit.read(config)
        let db: URL?
        let pg = try GameSection.postgres(config)
        if pg != nil {
            db = nil
            awaitingFirstGame = false
        } else if kit != nil, let s = try config.string("database"),
                  !FileManager.default.fileExists(atPath: config.resolve(s).path) {
            db = config.resolve(s)
            awaitingFirstGame = true
        } else {
            db = try config.path("database", required: false)
            awaitingFirstGame = false
        }
        let hasTelemetry = config.value("telemetry") != nil
        store = pg ?? db.map { .sqlite(path: $0.path) }
        if store != nil && hasTelemetry {
            throw config.error("database", "give either telemetry or database, not both")
        }
        if store == nil && !hasTelemetry {
            throw config.error(nil, "missing required key 'telemetry' (JSON Lines files) or 'database'")
        }
        files = hasTelemetry ? try config.paths("telemetry", extensions: ["jsonl"]) : []
        database = db
        var o = AnalysisOptions()
        if let c = try config.double("C") {
            guard c > 0, c.isFinite else { throw config.error("C", "must be a positive number") }
            o.C = c
        }
        o.folds = try config.int("folds", default: 5, range: 2...20) ?? 5
        options = o
        privateSite = try config.bool("private_site", default: false)
        resultsCapacity = try config.int("results_capacity", default: GameResultFiles.defaultCapacity,
                                         range: 1...100_000)
            ?? GameResultFiles.defaultCapacity
        simulated = try config.bool("simulated", default: false)
        if privateSite { _ = config.value("privacy"); privacy = nil } else {
            privacy = try GamePrivacySettings(config: config, project: project,
                                              database: awaitingFirstGame ? nil : store)
        }
    }

    public func units() throws -> [SectionUnit] {
        var unit = SectionUnit(id: "cohort", inputs: awaitingFirstGame ? [] : database.map { [$0] } ?? files,
                               salt: try cohortSalt(privacy: privacy?.cacheSalt))
        // (An ingest may write the database during the build: the unit reads one snapshot.)
        unit.snapshotInputs = database.map { [$0.path] } ?? []
        // With telemetry files, the build that makes the privacy key stores the unit under
        // the salt with that key, which the next plan finds (docs/game-privacy.md).
        unit.saltSetWhenBuilt = privacy != nil && store == nil && !awaitingFirstGame
        return [unit]
    }

    /// The cohort unit's salt, with `privacy` (``GamePrivacySettings/cacheSalt``; nil: none).
    func cohortSalt(privacy: String?) throws -> String {
        "C=\(options.C);folds=\(options.folds);private=\(privateSite);sim=\(simulated);\(kit?.salt ?? "");"
            + (awaitingFirstGame ? "awaiting;" : "") + "v6;dp=\(privacy ?? "-")"
            + walSalt() + (awaitingFirstGame ? "" : try GameSection.storeSalt(store))
            + (privacy != nil && store == nil && telemetryOutsideProject() != nil ? ";outside" : "")
    }

    /// `;wal=<SHA-256 of the database's -wal file>` while that file holds anything: an
    /// ingest that another connection keeps from being checkpointed changes only the
    /// `-wal` file, and must still rebuild the unit (docs/game-measures.md, "Incremental
    /// builds"). It follows `;key=`, so it is not part of the release's input digest, which
    /// covers the rows themselves (``StudyDatabase/rowsDigest()``).
    func walSalt() -> String {
        guard !awaitingFirstGame, let database,
              let wal = FileManager.default.contents(atPath: database.path + "-wal"), !wal.isEmpty else { return "" }
        return ";wal=" + SHA256.hash(data: wal).hexString
    }

    /// What the cohort unit reads: the cohort and, from a database, the result keys and the
    /// rows' digest, all from one snapshot.
    func readCohort() throws -> StudySnapshot {
        do {
            if let store { return try StudyDatabase(location: store, create: false).snapshot() }
            return StudySnapshot(cohort: try TelemetryJSONL.read(files: files, displayName: { project.display($0) }),
                                 resultKeys: [:], rowsDigest: Data())
        } catch {
            throw DossierError(file: error.file, line: error.line, column: error.column, error.message)
        }
    }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult {
        if awaitingFirstGame, let kit {
            let page = Page(path: "game/cohort/index.html", title: "Cohort summary", template: "game/awaiting",
                            model: GameAwaitingModel(),
                            styles: ["assets/game/game.css"])
            let record = GameRecord(players: [], count: 0, privateSite: privateSite, encryptedResults: 0, cvAUC: nil,
                                    cvAUCLow: nil, cvAUCHigh: nil)
            let marker = privateSite ? [OutputFile(path: PrivateSite.markerPath,
                                                   text: PrivateSite.markerText(section: Self.key))] : []
            return UnitResult(pages: [page], files: try kit.files() + marker, record: try JSONEncoder().encode(record))
        }
        let snapshot = try readCohort()
        let analysis = CohortAnalyzer.analyze(snapshot.cohort, options: options)
        var pages: [Page] = []
        var files: [OutputFile] = []
        if privateSite {
            for p in analysis.players {
                let r = GamePlayerPage.build(p, analysis: analysis, simulated: simulated)
                pages.append(r.page)
                files += r.files
            }
            files += GameCohortPage.playerFiles(analysis)
            files.append(OutputFile(path: PrivateSite.markerPath, text: PrivateSite.markerText(section: Self.key)))
        }
        var release: GamePublicRelease? = nil
        var notes: [String] = []
        var decoys: (key: Data, release: String)? = nil
        var saltAfterBuild: String? = nil
        if let privacy {
            let loaded = try privacy.loaded(checkOnly: context.checkOnly)
            notes = loaded.notes
            if store == nil, let outside = telemetryOutsideProject() { notes.append(Self.sharedFilesNote(outside)) }
            if unit.saltSetWhenBuilt && !context.checkOnly {
                saltAfterBuild = try cohortSalt(privacy: loaded.settings.cacheSalt)
            }
            let r = GamePublicRelease.make(analysis, settings: loaded.settings,
                                           inputs: try inputDigest(unit, rows: snapshot.rowsDigest,
                                                                   settings: loaded.settings))
            let c = GamePublicPage.build(analysis, release: r, simulated: simulated)
            pages.append(c.page); files += c.files; release = r
            if store != nil { decoys = (loaded.settings.key, r.releaseID) }
        } else {
            let c = GameCohortPage.build(analysis, simulated: simulated)
            pages.append(c.page); files += c.files
        }
        let results = try GameResultFiles.files(analysis, keys: snapshot.resultKeys, capacity: resultsCapacity,
                                                privacy: decoys)
        files += results
        let figures = release?.shownModelFigures()
        if let kit { files += try kit.files() }
        let warnings = (notes + analysis.warnings).map {
            Diagnostic.warning(file: database.map(project.display) ?? store?.shown
                                ?? self.files.first.map(project.display), $0)
        }
        let record = GameRecord(players: privateSite ? analysis.players.map {
            GameRecord.Row(id: $0.id, group: $0.group.label, sessions: $0.measures.sessions,
                           bestScore: $0.measures.bestScore, probability: $0.likelihood.probability,
                           suggest: $0.likelihood.suggest)
        } : [], count: release.map { r in max(0, r.groups.reduce(0) { $0 + r.groupSize($1) }) }
            ?? analysis.players.count,
            privateSite: privateSite, encryptedResults: results.count,
            cvAUC: release == nil ? analysis.model?.cvAUC : figures?.auc,
            cvAUCLow: release == nil ? analysis.model?.cvAUCLow : figures?.aucLow,
            cvAUCHigh: release == nil ? analysis.model?.cvAUCHigh : figures?.aucHigh)
        var result = UnitResult(pages: pages, files: files, record: try JSONEncoder().encode(record),
                                warnings: warnings)
        result.saltAfterBuild = saltAfterBuild
        return result
    }

    /// The first telemetry file lying outside the project folder (symbolic links
    /// resolved), as messages show it; nil when every one is inside. Another project may
    /// read such a file, and its releases would be counted by a key and ledger of its own.
    func telemetryOutsideProject() -> String? {
        let root = Confinement.real(project.root)
        return files.first { !Confinement.isWithin(Confinement.real($0), root) }.map(project.display)
    }

    /// The warning of a public release built from telemetry outside the project
    /// (docs/game-privacy.md, "Threat model").
    static func sharedFilesNote(_ shown: String) -> String {
        "telemetry outside the project (\(shown)): its public releases are counted by this project's privacy key and "
            + "ledger only, so another project publishing from the same files would spend a budget of its own "
            + "(docs/game-privacy.md, \"Threat model\"); to publish one study from several projects, ingest it "
            + "into one study database"
    }

    /// SHA-256 over the unit's salt (up to `;key=`) and the data read: a database's rows
    /// digest (`rows`), or every telemetry file's path and bytes. What keys the release's noise.
    /// The salt's `dp=` part is that of the settings in force (`settings`): a build that
    /// lost the race to make the key has the database's lifetime, not the one it planned with.
    func inputDigest(_ unit: SectionUnit, rows: Data, settings: GamePrivacySettings) throws -> Data {
        var h = SHA256()
        let planned = unit.salt.components(separatedBy: ";key=")[0]
        let head = planned.components(separatedBy: ";dp=").dropLast().joined(separator: ";dp=")
        h.update(data: Data((head + ";dp=" + settings.cacheSalt.components(separatedBy: ";key=")[0]).utf8))
        if store != nil {
            h.update(data: Data("database:".utf8) + rows)
            return Data(h.finalize())
        }
        for url in unit.inputs {
            h.update(data: Data(project.display(url).utf8))
            h.update(data: try Data(contentsOf: url))
        }
        return Data(h.finalize())
    }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult {
        let rec = try records.first.map { try JSONDecoder().decode(GameRecord.self, from: $0.data) }
            ?? GameRecord(players: [], count: 0, privateSite: privateSite, encryptedResults: 0, cvAUC: nil,
                          cvAUCLow: nil, cvAUCHigh: nil)
        let rows = rec.players.map {
            GameIndexModel.Player(id: $0.id, group: $0.group, sessions: $0.sessions,
                                  score: $0.bestScore.map(String.init) ?? "–",
                                  probability: GameFormat.percent($0.probability), suggest: $0.suggest)
        }
        let auc = rec.cvAUC.map {
            "\(GameFormat.num($0, 2)) (95 % CI \(GameFormat.num(rec.cvAUCLow, 2))–\(GameFormat.num(rec.cvAUCHigh, 2)))"
        }
        let model = GameIndexModel(players: rows, count: rec.count, auc: auc ?? "not available",
                                   privateSite: rec.privateSite, results: rec.encryptedResults > 0,
                                   hasKit: kit != nil, awaitingFirstGame: awaitingFirstGame)
        let page = Page(path: "game/index.html", title: Self.title, template: "game/index", model: model)
        let blurb = awaitingFirstGame ? "The RocketMouse game: no player has sent a game yet."
            : "Reaction-time telemetry of \(rec.count) RocketMouse players: CPT-like measures, norms and a "
                + "screening model"
                + (auc.map {
                    rec.privateSite
                        ? " (cross-validated AUC \($0))." : " (AUC of the public (differentially private) model \($0))."
                } ?? ".")
        return UnitResult(pages: [page, GameMethodsPage.page()], blurb: blurb)
    }
}

/// What a player's device decrypts from `game/results/<name>.rmr`.
struct PlayerResultFile: Encodable {
    var player: String
    var group: Group
    var ageBand: String?
    var measures: PlayerMeasures
    var norms: [NormEntry]
    var likelihood: Likelihood
    init(_ p: PlayerResult, analysis: CohortAnalysis) {
        player = p.id; group = p.group; ageBand = p.ageBand
        measures = p.measures; norms = p.norms; likelihood = p.likelihood
    }
}

/// What the cohort unit leaves for the section index.
struct GameRecord: Codable {
    struct Row: Codable {
        var id: String
        var group: String
        var sessions: Int
        var bestScore: Int?
        var probability: Double?
        var suggest: Bool
    }
    var players: [Row]
    var count: Int
    var privateSite: Bool
    var encryptedResults: Int
    var cvAUC: Double?
    var cvAUCLow: Double?
    var cvAUCHigh: Double?
}

// MARK: - Formatting

enum GameFormat {
    /// The options of a model chart whose axes are rates or probabilities, both 0 to 1
    /// (the ROC and calibration curves of the cohort and public pages), 420 × 380.
    static func unitSquare(title: String, description: String, xLabel: String, yLabel: String) -> ChartOptions {
        ChartOptions(title: title, description: description, width: 420, height: 380, xLabel: xLabel,
                     yLabel: yLabel, dataSummary: false, yMin: 0, yMax: 1, xMin: 0, xMax: 1)
    }

    /// `x` with `digits` decimals as a page shows it: never `-0`, a negative value with
    /// U+2212 (`−0.62`, ``ValueFormat/minus(_:)``); missing or non-finite reads `–`.
    static func num(_ x: Double?, _ digits: Int = 1) -> String {
        guard let x, x.isFinite else { return "–" }
        let s = cFormat("%.\(digits)f", x)
        return s == "-0" || s.hasPrefix("-0.") && Double(s) == 0 ? String(s.dropFirst()) : ValueFormat.minus(s)
    }
    static func percent(_ x: Double?) -> String { x.map { num($0 * 100, 0) + " %" } ?? "–" }

    /// A value in its unit: rates as %, ms as whole ms.
    static func value(_ x: Double?, measure: String) -> String {
        guard let x else { return "–" }
        switch measure {
        case "omissionRate", "anticipatoryRate": return num(x * 100, 1) + " %"
        case "hitRTCV", "dPrime": return num(x, 2)
        case "commissionRate": return num(x, 2) + " /min"
        case "blockSlope": return num(x, 1) + " ms/block"
        case "isiSlope": return num(x, 1) + " ms/s"
        default: return num(x, 0) + " ms"
        }
    }

    /// A small inline SVG bar: the percentile as a filled bar with a mark at the median.
    static func percentileBar(_ pct: Double?) -> String {
        guard let pct else { return "" }
        let w = max(0, min(100, pct))
        return "<svg class=\"pbar\" width=\"104\" height=\"12\" viewBox=\"0 0 104 12\" role=\"img\" "
            + "aria-label=\"percentile \(num(pct, 0))\">"
            + "<title>percentile \(num(pct, 0))</title>"
            + "<rect x=\"2\" y=\"2\" width=\"100\" height=\"8\" fill=\"#e5e7eb\"/>"
            + "<rect x=\"2\" y=\"2\" width=\"\(num(w, 1))\" height=\"8\" fill=\"#4f6fb0\"/>"
            + "<line x1=\"52\" y1=\"0\" x2=\"52\" y2=\"12\" stroke=\"#111\" stroke-width=\"1\"/></svg>"
    }

    static func csv(_ header: [String], _ rows: [[CSVWriter.Cell]]) -> Data {
        var w = CSVWriter(header: header)
        for r in rows { w.append(r) }
        return w.data
    }

    static func json<T: Encodable>(_ v: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try e.encode(v)
    }
}

