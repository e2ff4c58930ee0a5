import Foundation
import RecallStudy
import Render
import CompactBinary

/// The `recall` section: glue between the RecallStudy core and the renderer.
///
/// ```yaml
/// recall:
///   strings: data/recall/strings.txt          # the 10 target strings (required)
///   logs: data/recall/logs                    # folder, glob or list: *.jsonl native, *.csv desktop Raw Data
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

    let stringsURL: URL
    let logs: [URL]
    let cohorts: [URL]
    let heatmapRows: Int
    /// The test kit, when `kit: true`.
    let kit: RecallKit?
    /// Unit id → file.
    let slugs: [(id: String, url: URL)]
    /// For project-relative file names in messages and pages.
    let project: Project

    public init(config: SectionConfig, project: Project) throws {
        self.project = project
        stringsURL = try config.path("strings")!
        // Validate the strings file now: a bad file is an error at its line.
        do { _ = try StringSet.load(stringsURL, display: project.display(stringsURL)) } catch let e as RecallError {
            throw DossierError(file: e.file, line: e.line, e.message)
        }
        let wantsKit = try config.bool("kit", default: false)
        do {
            logs = try config.paths("logs", extensions: ["jsonl", "csv"])
        } catch where wantsKit && (try? config.strings("logs"))?.allSatisfy({ Self.isFolder(config.resolve($0)) }) == true {
            logs = []   // a kit study that has no logs yet
        }
        cohorts = try config.paths("desktop_cohorts", extensions: ["csv"])
        heatmapRows = try config.int("heatmap_rows", default: 150, range: 1...100_000) ?? 150
        if wantsKit {
            let set: StringSet
            do { set = try StringSet.load(stringsURL, display: project.display(stringsURL)) } catch let e as RecallError {
                throw DossierError(file: e.file, line: e.line, e.message)
            }
            kit = RecallKit(strings: set, setName: stringsURL.deletingPathExtension().lastPathComponent,
                            upload: try RecallKit.uploadURL(config))
        } else {
            kit = nil
        }
        if logs.isEmpty && cohorts.isEmpty && kit == nil {
            throw config.error(nil, "name participant logs (`logs:`) or desktop cohorts (`desktop_cohorts:`)")
        }
        var seen: [String: URL] = [:]
        var slugs: [(String, URL)] = []
        for (prefix, urls) in [("p-", logs), ("cohort-", cohorts)] {
            for url in urls {
                let id = prefix + Self.slug(url.deletingPathExtension().lastPathComponent)
                if let other = seen[id] {
                    throw config.error(prefix == "p-" ? "logs" : "desktop_cohorts",
                                       "\(project.display(url)) and \(project.display(other)) would share the page '\(id)'; rename one")
                }
                seen[id] = url
                slugs.append((id, url))
            }
        }
        self.slugs = slugs
    }

    static func isFolder(_ url: URL) -> Bool {
        var dir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &dir) && dir.boolValue
    }

    /// A file name as a URL-safe folder name.
    static func slug(_ s: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let out = String(s.map { allowed.contains($0) ? $0 : "-" })
        return out.isEmpty ? "log" : out
    }

    public func units() throws -> [SectionUnit] {
        slugs.map { SectionUnit(id: $0.id, inputs: $0.id.hasPrefix("p-") ? [$0.url, stringsURL] : [$0.url]) }
    }

    /// participant.json: sorted keys, compact (JSONOutput's re-encoding costs 3× for a
    /// file of this size, and JSONEncoder with sorted keys is already deterministic).
    static func json<T: Encodable>(_ v: T) throws -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try enc.encode(v)
    }

    func strings() throws -> StringSet {
        try StringSet.load(stringsURL, display: project.display(stringsURL))
    }

    // MARK: Units

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult {
        guard let url = slugs.first(where: { $0.id == unit.id })?.url else { return UnitResult() }
        do {
            if unit.id.hasPrefix("cohort-") {
                return try buildCohort(id: unit.id, url: url)
            }
            return try buildParticipant(id: unit.id, url: url, context: context)
        } catch let e as RecallError {
            throw DossierError(file: e.file, line: e.line, e.message)
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
        let strings = try strings()
        let shown = project.display(url)
        let log = url.pathExtension.lowercased() == "csv"
            ? try DesktopRaw.load(url, display: shown)
            : try NativeLog.load(url, display: shown)
        let result = try Analyzer.analyze(log, strings: strings)
        let slug = String(id.dropFirst(2))
        let base = "recall/participants/\(slug)/"
        let raw = RawData.table(log: log, result: result, strings: strings)
        let rolled = RolledUp.table(result)
        var files = [
            OutputFile(path: base + "raw.csv", data: RecallRender.csv(raw)),
            OutputFile(path: base + "rolled-up.csv", data: RecallRender.csv(rolled)),
            OutputFile(path: base + "participant.json", data: try Self.json(result)),
        ]
        files.append(OutputFile(path: base + "report.md", text: RecallReport.markdown(result, slug: slug)))
        let page = Page(path: base + "index.html", title: "Participant \(result.participant)",
                        template: "recall/participant", model: RecallReport.model(result, slug: slug),
                        styles: ["assets/recall/recall.css"], bodyClass: "recall")
        let summary = ParticipantSummary(result)
        let detail = ParticipantDetail(result, strings: strings)
        let warnings = result.warnings.map { Diagnostic.warning(file: $0.file, line: $0.line, $0.message) }
        return UnitResult(pages: [page], files: files, record: RecallRecord.participantData(slug: slug, summary, detail: detail),
                          warnings: warnings)
    }

    // MARK: Summary

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult {
        var participants: [(slug: String, summary: ParticipantSummary)] = []
        var details: [ParticipantDetail] = []
        var cohorts: [(slug: String, table: CohortTable)] = []
        // Decoded on every core: with thousands of participants this is most of an
        // incremental build's summary.
        let decoded = parallelMap(records) { r in Result { try RecallRecord.decode(r.data) } }
        for d in decoded {
            let rec = try d.get()
            if let p = rec.participant { participants.append((rec.slug, p)); details.append(rec.detail ?? ParticipantDetail()) }
            if let c = rec.cohort { cohorts.append((rec.slug, c)) }
        }
        let strings: StringSet
        do { strings = try self.strings() } catch let e as RecallError { throw DossierError(file: e.file, line: e.line, e.message) }
        let study = StudyTable.table(name: "This study", strings: strings, participants: participants.map(\.summary))
        let sourceOf = Dictionary(slugs.map { ($0.id, project.display($0.url)) }, uniquingKeysWith: { a, _ in a })
        let everyone = zip(participants, details).map { p, d in
            StudyParticipant(summary: p.summary, detail: d, sourceFile: sourceOf["p-" + p.slug] ?? p.slug)
        }
        var files = RecallStudyFiles.files(strings: strings, participants: everyone, appendixB: study)
        if let kit { files += try kit.files() }
        var model = RecallStudyPage.model(strings: strings, participants: participants, study: study,
                                          cohorts: cohorts, heatmapRows: heatmapRows, everyone: everyone)
        model["hasKit"] = kit != nil
        files.append(OutputFile(path: "recall/summary.md", text: RecallStudyPage.markdown(strings: strings, participants: participants, study: study, cohorts: cohorts)))
        var warnings: [Diagnostic] = []
        var firstFile: [String: String] = [:]
        for p in participants {
            if let other = firstFile[p.summary.participant] {
                warnings.append(.warning(file: slugs.first { $0.id == "p-" + p.slug }.map { project.display($0.url) },
                                         "participant number \(p.summary.participant) also appears in \(other); both are listed"))
            } else {
                firstFile[p.summary.participant] = slugs.first { $0.id == "p-" + p.slug }.map { project.display($0.url) } ?? p.slug
            }
        }
        let complete = participants.filter { $0.summary.complete }.count
        let blurb = "\(participants.count) participant\(participants.count == 1 ? "" : "s") (\(complete) complete)"
            + (cohorts.isEmpty ? "" : " and \(cohorts.count) desktop cohort\(cohorts.count == 1 ? "" : "s")")
            + " of the character-string memorization test."
        return UnitResult(pages: [Page(path: "recall/index.html", title: Self.title, template: "recall/summary",
                                       model: model, styles: ["assets/recall/recall.css"], bodyClass: "recall")],
                          files: files, warnings: warnings, blurb: blurb)
    }
}

/// What a unit leaves for the summary. A participant's is binary (byte 0x01, the slug,
/// then ``ParticipantSummary/compactBytes()``: thousands are read by every summary); a
/// desktop cohort's (a handful) is JSON.
struct RecallRecord: Codable {
    var kind: String
    var id: String
    var slug: String
    var participant: ParticipantSummary?
    var cohort: CohortTable?
    /// The participant's rows of the study-wide tables (binary records only).
    var detail: ParticipantDetail?

    enum CodingKeys: String, CodingKey { case kind, id, slug, participant, cohort }

    /// Byte 0x02, the slug, the summary (u32 length + bytes), then the detail.
    static func participantData(slug: String, _ summary: ParticipantSummary, detail: ParticipantDetail) -> Data {
        var w = CompactWriter()
        w.u8(0x02)
        w.string(slug)
        w.data(Data(summary.compactBytes()))
        w.raw(detail.compactBytes())
        return Data(w.bytes)
    }

    static func decode(_ data: Data) throws -> RecallRecord {
        if data.first == 0x01 { throw DossierError("recall: the build state holds participant records of an older Dossier; run with --clean") }
        guard data.first == 0x02 else { return try JSONDecoder().decode(RecallRecord.self, from: data) }
        let rec: RecallRecord? = data.withUnsafeBytes { b in
            var r = CompactReader(b)
            guard r.u8() == 0x02, let slug = r.string(), let n = r.count(), let sb = r.take(n),
                  let summary = ParticipantSummary(compactBytes: sb),
                  let detail = ParticipantDetail(compactBytes: UnsafeRawBufferPointer(rebasing: b[r.position...])) else { return nil }
            return RecallRecord(kind: "participant", id: "p-" + slug, slug: slug, participant: summary, cohort: nil, detail: detail)
        }
        guard let rec else { throw DossierError("recall: a participant record in the build state is damaged; run with --clean") }
        return rec
    }
}

// MARK: - CSV output

enum RecallRender {
    /// raw.csv and rolled-up.csv, field by field through ``CSVWriter`` (tens of
    /// thousands of cells per participant: no Cell array per row).
    static func csv(_ t: Table) -> Data {
        var w = CSVWriter(header: t.header)
        for r in t.rows {
            for c in r {
                switch c {
                case .text(let s): w.textField(s)
                case .int(let n): w.numberField(n)
                case .number(let d): w.numberField(d)
                case .empty: w.emptyField()
                }
            }
            w.endRecord()
        }
        return w.data
    }

    /// Text rows (the Appendix B layout): numbers stay as written.
    static func csv(_ rows: [[String]]) -> Data {
        var w = CSVWriter()
        for r in rows {
            w.append(r.map { s -> CSVWriter.Cell in
                if s.isEmpty { return .empty }
                return RecallStudyFiles.isPlainNumber(s) ? .number(s) : .text(s)
            })
        }
        return w.data
    }

    static func participantsCSV(_ all: [StudyParticipant]) -> Data {
        var w = CSVWriter(header: ["participant", "source_file", "source", "complete", "session_total_ms", "last_event_ms", "warnings",
                                   "entries", "incorrect_entries", "rekeys", "deletions", "verify_failures",
                                   "recall_fields", "strings_recalled", "median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms"])
        for sp in all {
            let p = sp.summary
            w.append([.text(p.participant), .text(sp.sourceFile), .text(p.source.rawValue), .text(p.complete ? "True" : "False"),
                      CSVWriter.number(p.sessionTotalMs), CSVWriter.number(p.lastEventMs), CSVWriter.number(p.warnings),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.entries }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.incorrectEntries }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.rekeys }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.deletions }),
                      CSVWriter.number(p.strings.reduce(0) { $0 + $1.verifyFailures }),
                      CSVWriter.number(p.recallFields), .text(p.recalled.map(String.init).joined(separator: " ")),
                      CSVWriter.number(p.medianHold), CSVWriter.number(p.medianDownDown),
                      CSVWriter.number(p.medianUpDown), CSVWriter.number(p.medianUpUp)])
        }
        return w.data
    }

    static func seconds(_ ms: Int?) -> String { ms.map { formatSeconds(Double($0) / 1000) } ?? "—" }
    static func seconds(_ s: Double?) -> String { s.map(formatSeconds) ?? "—" }
    static func ms(_ d: Double?) -> String { d.map { JSONValue.formatNumber(($0 * 10).rounded() / 10) } ?? "—" }
    static func yes(_ b: Bool) -> String { b ? "yes" : "no" }
}

// MARK: - The participant report (HTML model and Markdown)

enum RecallReport {
    static func model(_ r: ParticipantResult, slug: String) -> [String: Any] {
        let reached = r.strings.filter(\.reached)
        var rows: [[String: Any]] = []
        for s in reached {
            rows.append([
                "n": s.number, "target": s.target, "length": s.length,
                "memorizeViews": s.memorizeViews.count, "memorizeTotal": RecallRender.seconds(s.memorizeTotalMs),
                "verifyViews": s.verifyViews.count, "verifyFailures": s.verifyFailures,
                "verifyTotal": RecallRender.seconds(s.verifyTotalMs),
                "entries": s.entries.count, "incorrect": s.incorrectEntries, "rekeys": s.rekeys, "deletions": s.deletions,
                "entryTotal": RecallRender.seconds(s.entryTotalMs), "meanEntry": RecallRender.seconds(s.meanEntrySeconds),
                "sdEntry": RecallRender.seconds(StudyStats.sd(s.entries.map { Double($0.durationMs) / 1000 })),
                "finalCorrect": s.finalCorrect, "toLastKey": RecallRender.seconds(s.memorizeToLastEntryKeyMs),
                "done": s.completed,
                "entryRowsHTML": entryRows(s.entries),
            ])
        }
        var m: [String: Any] = [
            "participant": r.participant, "slug": slug,
            "source": r.source == .desktop ? "desktop Raw Data (imported)" : "mobile event log",
            "device": r.device ?? "", "hasDevice": r.device != nil,
            "complete": r.complete,
            "status": r.complete ? "complete" : "incomplete (the log ends at \(RecallRender.seconds(r.lastEventMs)) s without the Thank You page)",
            "practice": reached.flatMap { s in s.practice.map { e -> [String: Any] in
                ["n": s.number, "page": e.page.title, "order": e.order, "duration": RecallRender.seconds(e.durationMs),
                 "correct": e.correct, "keystrokes": e.keystrokes, "deletions": e.deletions,
                 "medianHold": RecallRender.ms(e.dynamics.medianHold), "medianDD": RecallRender.ms(e.dynamics.medianDownDown),
                 "medianUD": RecallRender.ms(e.dynamics.medianUpDown), "medianUU": RecallRender.ms(e.dynamics.medianUpUp)]
            } },
            "hasPractice": reached.contains { !$0.practice.isEmpty },
            "sessionTotal": RecallRender.seconds(r.sessionTotalMs),
            "reachedCount": reached.count,
            "strings": rows,
            "warnings": r.warnings.map { ["text": $0.description] },
            "hasWarnings": !r.warnings.isEmpty,
            "medianHold": RecallRender.ms(r.medianHold), "medianDD": RecallRender.ms(r.medianDownDown),
            "medianUD": RecallRender.ms(r.medianUpDown), "medianUU": RecallRender.ms(r.medianUpUp),
            "timelineSVG": timeline(r),
        ]
        m["hasRecall"] = r.recall != nil
        m["hasEntries"] = false
        m["hasDynamics"] = false
        if let rc = r.recall {
            m["recall"] = [
                "total": RecallRender.seconds(rc.totalMs),
                "fields": rc.fields.map { f -> [String: Any] in
                    ["field": f.field, "text": f.text, "correct": f.correct, "matches": f.matches.map { "string \($0)" } ?? "no string"]
                },
                "hasFields": !rc.fields.isEmpty,
                "recalled": rc.stringsRecalled.count,
            ] as [String: Any]
        }
        let entries = reached.flatMap { s in s.entries.map { (s.length, $0) } }
        if !entries.isEmpty {
            m["hasEntries"] = true
            let ok = entries.filter { $0.1.correct }.map { XYPoint(x: Double($0.0), y: Double($0.1.durationMs) / 1000, label: "field \($0.1.field)") }
            let bad = entries.filter { !$0.1.correct }.map { XYPoint(x: Double($0.0), y: Double($0.1.durationMs) / 1000, label: "field \($0.1.field)") }
            m["entrySVG"] = Charts.scatter(series: [XYSeries(name: "correct", points: ok), XYSeries(name: "incorrect", points: bad)],
                                           options: ChartOptions(title: "Entry time against string length",
                                                                 description: "Each individual entry on the Entry pages: seconds from the first to the last keystroke against the target's length.",
                                                                 xLabel: "string length (characters)", yLabel: "entry time (s)", yMin: 0))
            let cats = reached.map { "\($0.number)" }
            m["errorsSVG"] = Charts.bar(categories: cats, series: [
                BarSeries(name: "incorrect entries", values: reached.map { Double($0.incorrectEntries) }),
                BarSeries(name: "re-keys", values: reached.map { Double($0.rekeys) }),
                BarSeries(name: "backspaces", values: reached.map { Double($0.deletions) }),
                BarSeries(name: "Verify Not OK", values: reached.map { Double($0.verifyFailures) }),
            ], options: ChartOptions(title: "Errors and re-keys per string",
                                     description: "Counts per string: entries not equal to the target, re-keyed fields, keystrokes that deleted characters, and failed Verify attempts.",
                                     xLabel: "string", yLabel: "count", yMin: 0))
            let all = reached.flatMap(\.entries)
            let groups = [("hold", all.flatMap(\.dynamics.hold)), ("down-down", all.flatMap(\.dynamics.downDown)),
                          ("up-down", all.flatMap(\.dynamics.upDown)), ("up-up", all.flatMap(\.dynamics.upUp))]
                .filter { !$0.1.isEmpty }
                .map { BoxGroup(name: $0.0, values: $0.1.map(Double.init)) }
            if !groups.isEmpty {
                m["hasDynamics"] = true
                m["dynamicsSVG"] = Charts.boxPlot(groups: groups, options: ChartOptions(
                    title: "Keystroke dynamics (Entry pages)",
                    description: "Distribution of key hold times and of down-down, up-down and up-up latencies between consecutive keys, in milliseconds, over all entries.",
                    yLabel: "milliseconds"))
            }
        }
        return m
    }

    /// The rows of a string's individual-entries table, built here rather than in the
    /// template: a session has over a hundred entries and this is the report's hot path.
    /// Every value is a number or a fixed word; nothing from the log is inserted unescaped.
    static func entryRows(_ entries: [TypedEntry]) -> String {
        var o = ""
        o.reserveCapacity(entries.count * 160)
        for e in entries {
            o += "<tr><td>\(e.order)</td><td>\(e.field)</td><td>\(RecallRender.seconds(e.durationMs))</td><td>"
            o += e.correct ? "True" : "False"
            o += "</td><td>\(e.rekey ? "yes" : "")</td><td>\(e.keystrokes)</td><td>\(e.deletions)</td><td>"
            o += HTML.escape(RecallRender.ms(e.dynamics.medianHold)) + "</td><td>" + HTML.escape(RecallRender.ms(e.dynamics.medianDownDown)) + "</td></tr>\n"
        }
        return o
    }

    static func timeline(_ r: ParticipantResult) -> String {
        var lanes: [TimelineLane] = []
        for s in r.strings where s.reached {
            var spans: [TimelineSpan] = []
            for v in s.memorizeViews { spans.append(TimelineSpan(start: Double(v.start) / 1000, end: Double(v.end) / 1000, label: "Memorize \(v.view)", category: "Memorize")) }
            for v in s.verifyViews { spans.append(TimelineSpan(start: Double(v.start) / 1000, end: Double(v.end) / 1000, label: "Verify \(v.view)", category: "Verify")) }
            if let st = s.entryStart {
                spans.append(TimelineSpan(start: Double(st) / 1000, end: Double(st + (s.entryTotalMs ?? 0)) / 1000, label: "Entry", category: "Entry"))
            }
            lanes.append(TimelineLane(name: "String \(s.number)", spans: spans))
        }
        if let rc = r.recall {
            lanes.append(TimelineLane(name: "Recall", spans: [TimelineSpan(start: Double(rc.start) / 1000, end: Double(rc.end) / 1000, label: "Recall", category: "Recall")]))
        }
        return Charts.timeline(lanes: lanes, options: ChartOptions(
            title: "Phase timeline", description: "When each page of each string was on screen, in seconds since Begin.",
            height: Double(max(160, 40 + 26 * lanes.count)), xLabel: "seconds since Begin"))
    }

    /// The same report as Markdown (report.md).
    static func markdown(_ r: ParticipantResult, slug: String) -> String {
        func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "\\`") }
        var o = "# Participant \(cell(r.participant))\n\n"
        o += "- Source: \(r.source == .desktop ? "desktop Raw Data (imported)" : "mobile event log")\n"
        o += "- Status: \(r.complete ? "complete" : "incomplete (the log ends at \(RecallRender.seconds(r.lastEventMs)) s without the Thank You page)")\n"
        o += "- Session total: \(RecallRender.seconds(r.sessionTotalMs)) s\n"
        o += "- Keystroke medians (ms): hold \(RecallRender.ms(r.medianHold)), down-down \(RecallRender.ms(r.medianDownDown)), up-down \(RecallRender.ms(r.medianUpDown)), up-up \(RecallRender.ms(r.medianUpUp))\n\n"
        if !r.warnings.isEmpty {
            o += "## Warnings\n\n" + r.warnings.map { "- \(cell($0.description))\n" }.joined() + "\n"
        }
        o += "## Strings\n\n| # | target | length | Memorize views | Memorize s | Verify Not OK | Verify s | entries | incorrect | re-keys | backspaces | Entry s | mean entry s | correct at Done |\n"
        o += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        for s in r.strings where s.reached {
            o += "| \(s.number) | `\(cell(s.target))` | \(s.length) | \(s.memorizeViews.count) | \(RecallRender.seconds(s.memorizeTotalMs)) | \(s.verifyFailures) | \(RecallRender.seconds(s.verifyTotalMs)) | \(s.entries.count) | \(s.incorrectEntries) | \(s.rekeys) | \(s.deletions) | \(RecallRender.seconds(s.entryTotalMs)) | \(RecallRender.seconds(s.meanEntrySeconds)) | \(s.finalCorrect)/10 |\n"
        }
        if let rc = r.recall {
            o += "\n## Recall\n\nTotal: \(RecallRender.seconds(rc.totalMs)) s; strings recalled exactly: \(rc.stringsRecalled.count)\n\n"
            if !rc.fields.isEmpty {
                o += "| field | text | matches |\n|---|---|---|\n"
                for f in rc.fields { o += "| \(f.field) | `\(cell(f.text))` | \(f.matches.map { "string \($0)" } ?? "False") |\n" }
            }
        }
        o += "\nData: raw.csv, rolled-up.csv, participant.json (see docs/recall-measures.md).\n"
        return o
    }
}

// MARK: - The study summary page

enum RecallStudyPage {
    static func columnLabels(_ t: CohortTable) -> [String] { t.columns.map { "\($0.order) (\($0.length))" } }

    static func heatmap(_ t: CohortTable, title: String, limit: Int) -> (svg: String, shown: Int, total: Int) {
        let rows = (t.complete.map { ($0, false) } + t.incomplete.map { ($0, true) })
        let shown = Array(rows.prefix(limit))
        let svg = Charts.heatmap(rows: shown.map { $0.1 ? "\($0.0.id) (incomplete)" : $0.0.id },
                                 columns: columnLabels(t),
                                 values: shown.map { $0.0.values },
                                 options: ChartOptions(title: title,
                                                       description: "Mean entry time in seconds per participant (rows; complete first, then incomplete) and string (columns, ordered by length; labelled order (length)). Blank cells: no value.",
                                                       height: Double(80 + 18 * max(1, shown.count)),
                                                       xLabel: "string: order (length)", yLabel: "participant"),
                                 cellLabels: shown.map { $0.0.values.map { $0.map(formatSeconds) ?? "" } })
        return (svg, shown.count, rows.count)
    }

    static func model(strings: StringSet, participants: [(slug: String, summary: ParticipantSummary)], study: CohortTable,
                      cohorts: [(slug: String, table: CohortTable)], heatmapRows: Int,
                      everyone: [StudyParticipant]) -> [String: Any] {
        let ps = participants.map(\.summary)
        var m: [String: Any] = [:]
        m["participantCount"] = ps.count
        m["completeCount"] = ps.filter(\.complete).count
        m["incompleteCount"] = ps.filter { !$0.complete }.count
        m["desktopCount"] = ps.filter { $0.source == .desktop }.count
        m["hasDesktop"] = ps.contains { $0.source == .desktop }
        m["hasParticipants"] = !ps.isEmpty
        m["strings"] = strings.strings.enumerated().map { ["n": $0.offset + 1, "text": $0.element, "length": $0.element.count, "last": $0.offset == StringSet.count - 1] }
        if !ps.isEmpty {
            let h = heatmap(study, title: "Mean entry time per participant and string (s)", limit: heatmapRows)
            m["heatmapSVG"] = h.svg
            m["heatmapTruncated"] = h.shown < h.total
            m["heatmapShown"] = h.shown
            m["heatmapTotal"] = h.total
        }
        // Entry time against length: every participant × string mean, this study and each cohort.
        var series = [XYSeries(name: "this study", points: study.complete.flatMap { p in
            zip(study.columns, p.values).compactMap { c, v in v.map { XYPoint(x: Double(c.length), y: $0, label: p.id) } }
        })]
        for c in cohorts {
            series.append(XYSeries(name: "desktop: \(c.table.name)", points: c.table.complete.flatMap { p in
                zip(c.table.columns, p.values).compactMap { col, v in v.map { XYPoint(x: Double(col.length), y: $0, label: p.id) } }
            }))
        }
        let pointCount = series.reduce(0) { $0 + $1.points.count }
        if pointCount <= 2000 {
            m["lengthSVG"] = Charts.scatter(series: series, options: ChartOptions(
                title: "Entry time against string length",
                description: "Mean entry time (s) of each complete participant for each string, against the string's length; desktop cohorts alongside.",
                xLabel: "string length (characters)", yLabel: "mean entry time (s)", yMin: 0))
        } else {
            // Too many points to draw one by one: box plots per length and source.
            var groups: [BoxGroup] = []
            let lengths = Set(series.flatMap { $0.points.map(\.x) }).sorted()
            for len in lengths {
                for s in series {
                    let v = s.points.filter { $0.x == len }.map(\.y)
                    if !v.isEmpty { groups.append(BoxGroup(name: "\(Int(len)) · \(s.name)", values: v)) }
                }
            }
            m["lengthSVG"] = Charts.boxPlot(groups: groups, options: ChartOptions(
                title: "Entry time against string length",
                description: "Distribution of the complete participants' mean entry time (s) per string, grouped by string length (characters) and by study or desktop cohort.",
                height: 360, xLabel: "length · source", yLabel: "mean entry time (s)"))
        }
        // Recall rate per string (participants who reached the Recall page).
        let recallers = ps.filter(\.reachedRecall)
        let cats = strings.strings.enumerated().map { "\($0.offset + 1) (\($0.element.count))" }
        var perString: [[String: Any]] = []
        var recallRates: [Double?] = [], incorrectRates: [Double?] = [], rekeyRates: [Double?] = [], verifyRates: [Double?] = []
        for n in 1...StringSet.count {
            let reached = ps.compactMap { $0.strings.first { $0.n == n && $0.reached } }
            let entries = reached.reduce(0) { $0 + $1.entries }
            let incorrect = reached.reduce(0) { $0 + $1.incorrectEntries }
            let rekeys = reached.reduce(0) { $0 + $1.rekeys }
            let fails = reached.reduce(0) { $0 + $1.verifyFailures }
            let recalled = recallers.filter { $0.recalled.contains(n) }.count
            let rr = recallers.isEmpty ? nil : Double(recalled) / Double(recallers.count)
            let ir = entries == 0 ? nil : Double(incorrect) / Double(entries)
            let kr = reached.isEmpty ? nil : Double(rekeys) / Double(reached.count)
            let vr = reached.isEmpty ? nil : Double(fails) / Double(reached.count)
            recallRates.append(rr); incorrectRates.append(ir); rekeyRates.append(kr); verifyRates.append(vr)
            let times = everyone.flatMap { $0.detail.entries.filter { $0.string == n }.map { Double($0.duration) / 1000 } }
            perString.append(["n": n, "text": strings[number: n], "length": strings[number: n].count,
                              "reached": reached.count,
                              "entryN": times.count, "meanEntry": RecallRender.seconds(StudyStats.mean(times)),
                              "sdEntry": RecallRender.seconds(StudyStats.sd(times)),
                              "medianEntry": RecallRender.seconds(StudyStats.quantile(times, 0.5)),
                              "recallRate": percent(rr), "incorrectRate": percent(ir),
                              "rekeysPer": rr == nil && kr == nil ? "—" : (kr.map { formatSeconds($0) } ?? "—"),
                              "verifyPer": vr.map { formatSeconds($0) } ?? "—"])
        }
        m["perString"] = perString
        m["recallSVG"] = Charts.bar(categories: cats, series: [BarSeries(name: "recalled", values: recallRates.map { $0.map { $0 * 100 } })],
                                    options: ChartOptions(title: "Recall rate per string",
                                                          description: "Share (%) of the participants who reached the Recall page who typed the string exactly (spaces count).",
                                                          xLabel: "string: order (length)", yLabel: "% recalled", yMin: 0, yMax: 100))
        m["errorsSVG"] = Charts.bar(categories: cats, series: [
            BarSeries(name: "incorrect entries (%)", values: incorrectRates.map { $0.map { $0 * 100 } }),
            BarSeries(name: "re-keys per participant", values: rekeyRates),
            BarSeries(name: "Verify Not OK per participant", values: verifyRates),
        ], options: ChartOptions(title: "Error rates per string",
                                 description: "Per string: the share of individual entries not equal to the target, and re-keyed fields and failed Verify attempts per participant who reached the string.",
                                 xLabel: "string: order (length)", yLabel: "rate", yMin: 0))
        m["participants"] = zip(participants, everyone).map { p, sp -> [String: Any] in
            let s = p.summary
            let times = sp.detail.entries.map { Double($0.duration) / 1000 }
            return ["slug": p.slug, "participant": s.participant, "complete": s.complete,
                    "source": s.source == .desktop ? "desktop" : "mobile", "sourceFile": sp.sourceFile,
                    "sessionTotal": RecallRender.seconds(s.sessionTotalMs),
                    "entryN": times.count, "meanEntry": RecallRender.seconds(StudyStats.mean(times)),
                    "sdEntry": RecallRender.seconds(StudyStats.sd(times)),
                    "recalled": s.recalled.count, "warnings": s.warnings]
        }
        m["cohorts"] = cohorts.map { c -> [String: Any] in
            let h = heatmap(c.table, title: "Desktop cohort \(c.table.name): entry time (s)", limit: heatmapRows)
            return ["name": c.table.name, "slug": c.slug, "complete": c.table.complete.count,
                    "incomplete": c.table.incomplete.count, "svg": h.svg]
        }
        m["hasCohorts"] = !cohorts.isEmpty
        return m
    }

    static func percent(_ d: Double?) -> String { d.map { formatSeconds($0 * 100) + " %" } ?? "—" }

    static func markdown(strings: StringSet, participants: [(slug: String, summary: ParticipantSummary)], study: CohortTable,
                         cohorts: [(slug: String, table: CohortTable)]) -> String {
        func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "\\`") }
        func table(_ t: CohortTable) -> String {
            var o = "| participant | " + t.columns.map { "`\(cell($0.string))`" }.joined(separator: " | ") + " |\n"
            o += "|---|" + t.columns.map { _ in "---|" }.joined() + "\n"
            o += "| order | " + t.columns.map { "\($0.order)" }.joined(separator: " | ") + " |\n"
            o += "| length | " + t.columns.map { "\($0.length)" }.joined(separator: " | ") + " |\n"
            for p in t.complete { o += "| \(cell(p.id)) | " + p.values.map { $0.map(formatSeconds) ?? "" }.joined(separator: " | ") + " |\n" }
            if !t.incomplete.isEmpty {
                o += "| **incomplete** |" + t.columns.map { _ in " |" }.joined() + "\n"
                for p in t.incomplete { o += "| \(cell(p.id)) | " + p.values.map { $0.map(formatSeconds) ?? "" }.joined(separator: " | ") + " |\n" }
            }
            return o
        }
        var o = "# Memorization study\n\n\(participants.count) participants, \(participants.filter { $0.summary.complete }.count) complete.\n\n"
        o += "## Mean entry time per participant and string (s)\n\n" + table(study)
        for c in cohorts { o += "\n## Desktop cohort \(cell(c.table.name))\n\n" + table(c.table) }
        return o
    }
}
