#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render
import TextBasics

// MARK: - The study summary page

enum RecallStudyPage {
    static func columnLabels(_ t: CohortTable) -> [String] { t.columns.map { "\($0.order) (\($0.length))" } }

    /// A heatmap cell's label: seconds with two decimals in every cell (`8.00`, `8.03`),
    /// so the grid reads as one column of numbers (docs/recall-section.md).
    static func cellSeconds(_ s: Double) -> String { ValueFormat.minus(cFormat("%.2f", s)) }

    static func heatmap(_ t: CohortTable, title: String, limit: Int) -> (svg: String, shown: Int, total: Int) {
        let rows = (t.complete.map { ($0, false) } + t.incomplete.map { ($0, true) })
        let shown = Array(rows.prefix(limit))
        let svg = Charts.heatmap(rows: shown.map { $0.1 ? "\($0.0.id) (incomplete)" : $0.0.id },
                                 columns: columnLabels(t),
                                 values: shown.map { $0.0.values },
                                 options: ChartOptions(title: title,
                                                       description: "Mean entry time in seconds per participant "
                                                        + "(rows; complete first, then incomplete) and string "
                                                        + "(columns, ordered by length; labelled order (length)). "
                                                        + "Blank cells: no value.",
                                                       height: Double(80 + 18 * max(1, shown.count)),
                                                       xLabel: "string: order (length)", yLabel: "participant"),
                                 cellLabels: shown.map { $0.0.values.map { $0.map(cellSeconds) ?? "" } })
        return (svg, shown.count, rows.count)
    }

    /// The summary page's model, from the participants' aggregates (``StudyAggregate``).
    static func model(strings: StringSet, aggregate: StudyAggregate, cohorts: [(slug: String, table: CohortTable)],
                      heatmapRows: Int) -> RecallSummaryModel {
        let study = aggregate.appendixB
        let count = aggregate.rows.count
        var model = RecallSummaryModel()
        model.participantCount = count
        model.completeCount = aggregate.completeCount
        model.desktopCount = aggregate.rows.count(where: \.desktop)
        model.strings = strings.strings.indices.map {
            RecallSummaryModel.StringLink(number: $0 + 1, last: $0 == StringSet.count - 1)
        }
        if count > 0 {
            let drawn = heatmap(study, title: "Mean entry time per participant and string (s)", limit: heatmapRows)
            model.heatmap = .init(svg: drawn.svg, shown: drawn.shown, total: drawn.total)
        }
        model.lengthSVG = lengthChart(study, cohorts: cohorts)
        // Recall rate per string (participants who reached the Recall page).
        let categories = strings.strings.enumerated().map { "\($0.offset + 1) (\($0.element.count))" }
        var recallRates: [Double?] = [], incorrectRates: [Double?] = [], rekeyRates: [Double?] = []
        var verifyRates: [Double?] = []
        for number in 1...StringSet.count {
            let string = aggregate.strings[number - 1]
            let recallRate = aggregate.recallers == 0 ? nil : Double(string.recalled) / Double(aggregate.recallers)
            let incorrectRate = string.reachedEntries == 0
                ? nil : Double(string.reachedIncorrect) / Double(string.reachedEntries)
            let rekeyRate = string.reached == 0 ? nil : Double(string.reachedRekeys) / Double(string.reached)
            let verifyRate = string.reached == 0 ? nil : Double(string.reachedVerifyFailures) / Double(string.reached)
            recallRates.append(recallRate); incorrectRates.append(incorrectRate)
            rekeyRates.append(rekeyRate); verifyRates.append(verifyRate)
            // Entry times (s) in participant and entry order.
            let times = string.times.map { Double($0) / 1000 }
            model.perString.append(.init(
                number: number, text: strings[number: number], reached: string.reached, entryCount: times.count,
                meanEntry: RecallRender.seconds(StudyStats.mean(times)),
                sdEntry: RecallRender.seconds(StudyStats.sd(times)),
                medianEntry: RecallRender.seconds(StudyStats.quantile(times, 0.5)),
                recallRate: percent(recallRate), incorrectRate: percent(incorrectRate),
                rekeysPer: recallRate == nil && rekeyRate == nil
                    ? "—" : (rekeyRate.map { formatSeconds($0) } ?? "—"),
                verifyPer: verifyRate.map { formatSeconds($0) } ?? "—"))
        }
        let recalled = BarSeries(name: "recalled", values: recallRates.map { $0.map { $0 * 100 } })
        model.recallSVG = Charts.bar(categories: categories, series: [recalled],
                                    options: ChartOptions(title: "Recall rate per string",
                                                          description: "Share (%) of the participants who reached "
                                                            + "the Recall page who typed the string exactly "
                                                            + "(spaces count).",
                                                          xLabel: "string: order (length)", yLabel: "% recalled",
                                                          yMin: 0, yMax: 100))
        model.errorsSVG = Charts.bar(categories: categories, series: [
            BarSeries(name: "incorrect entries (%)", values: incorrectRates.map { $0.map { $0 * 100 } }),
            BarSeries(name: "re-keys per participant", values: rekeyRates),
            BarSeries(name: "Verify Not OK per participant", values: verifyRates),
        ], options: ChartOptions(title: "Error rates per string",
                                 description: "Per string: the share of individual entries not equal to the target, "
                                    + "and re-keyed fields and failed Verify attempts per participant "
                                    + "who reached the string.",
                                 xLabel: "string: order (length)", yLabel: "rate", yMin: 0))
        // The participant table (a row per participant) is written into the page as
        // it is made (``participantsSplice(_:up:)``): the model holds its place.
        if count > 0 { model.participantsTable = PageSplice.marker }
        model.cohorts = cohorts.map { cohort in
            let drawn = heatmap(cohort.table, title: "Desktop cohort \(cohort.table.name): entry time (s)",
                                limit: heatmapRows)
            return .init(name: cohort.table.name, slug: cohort.slug, complete: cohort.table.complete.count,
                         incomplete: cohort.table.incomplete.count, svg: drawn.svg)
        }
        return model
    }

    /// Entry time against length: every participant × string mean, this study and each
    /// cohort; box plots per length and source when there are too many points to draw.
    static func lengthChart(_ study: CohortTable, cohorts: [(slug: String, table: CohortTable)]) -> String {
        var series = [XYSeries(name: "this study", points: study.complete.flatMap { p in
            zip(study.columns, p.values).compactMap { c, v in
                v.map { XYPoint(x: Double(c.length), y: $0, label: p.id) }
            }
        })]
        for c in cohorts {
            series.append(XYSeries(name: "desktop: \(c.table.name)", points: c.table.complete.flatMap { p in
                zip(c.table.columns, p.values).compactMap { col, v in
                    v.map { XYPoint(x: Double(col.length), y: $0, label: p.id) }
                }
            }))
        }
        let pointCount = series.reduce(0) { $0 + $1.points.count }
        if pointCount <= 2000 {
            // Side by side around each length: this study's points left, the cohorts' right.
            return Charts.scatter(series: Charts.sideBySide(series), options: ChartOptions(
                title: "Entry time against string length",
                description: "Mean entry time (s) of each complete participant for each string, "
                    + "against the string's length; desktop cohorts alongside. "
                    + "At each length the sources are drawn side by side (this study first), "
                    + "each point spread within its source's band, so none hides another.",
                xLabel: "string length (characters)", yLabel: "mean entry time (s)", yMin: 0))
        }
        // Too many points to draw one by one: box plots per length and source.
        var groups: [BoxGroup] = []
        let lengths = Set(series.flatMap { $0.points.map(\.x) }).sorted()
        for len in lengths {
            for s in series {
                let v = s.points.filter { $0.x == len }.map(\.y)
                if !v.isEmpty { groups.append(BoxGroup(name: "\(Int(len)) · \(s.name)", values: v)) }
            }
        }
        return Charts.boxPlot(groups: groups, options: ChartOptions(
            title: "Entry time against string length",
            description: "Distribution of the complete participants' mean entry time (s) per string, "
                + "grouped by string length (characters) and by study or desktop cohort.",
            height: 360, xLabel: "length · source", yLabel: "mean entry time (s)"))
    }

    // MARK: The participant table

    static let participantColumns = ["participant", "source", "status", "session", "entries (n)", "mean entry (s)",
                                     "SD (s)", "strings recalled", "warnings"]

    /// A participant's cells as the page writes them (HTML, escaped).
    static func participantCells(_ r: StudyAggregate.Row, up: String) -> [String] {
        let e = HTML.escape
        return ["<a href=\"\(e(up))participants/\(e(r.slug))/index.html\">\(e(r.participant))</a>"
                    + " <span class=\"muted\">\(e(r.sourceFile))</span>",
                r.desktop ? "desktop" : "mobile", r.complete ? "complete" : "incomplete",
                e(RecallRender.duration(r.sessionTotalMs)), String(r.entryCount),
                e(RecallRender.seconds(r.meanEntry)), e(RecallRender.seconds(r.sdEntry)),
                String(r.recalled), String(r.warnings)]
    }

    /// The participant table as the page shows it after the table pass, emitted a row at
    /// a time (a page splice never goes through the pass): the pass's column rules are
    /// applied column by column (``TableMarkup/Columns``: the columns' facts over every
    /// row first, then the rows), and the table tag is the pass's `<table class="data">`.
    /// Rendered through the template and the pass, the table was most of the summary
    /// page's memory at 2,000 participants (9 of 12 MB), and the page itself grew with it.
    static func participantsTable(_ rows: [StudyAggregate.Row], up: String, emit: (String) throws -> Void) rethrows {
        var columns = TableMarkup.Columns(count: participantColumns.count)
        for r in rows { columns.add(row: participantCells(r, up: up)) }
        try emit("<table class=\"data\">\n  <thead>" + columns.headerRow(participantColumns) + "</thead>\n  <tbody>")
        for r in rows { try emit(columns.bodyRow(participantCells(r, up: up))) }
        try emit("</tbody>\n</table>")
    }

    /// The table as the page's splice (written in place of the model's marker).
    static func participantsSplice(_ rows: [StudyAggregate.Row], up: String) -> PageSplice {
        PageSplice { emit in try participantsTable(rows, up: up, emit: emit) }
    }

    static func percent(_ d: Double?) -> String { d.map { formatSeconds($0 * 100) + " %" } ?? "—" }

    static func markdown(strings: StringSet, study: CohortTable,
                         cohorts: [(slug: String, table: CohortTable)]) -> String {
        func cell(_ s: String) -> String { MarkdownText.text(s) }
        func table(_ t: CohortTable) -> String {
            // Order and length stand in each column's header, so a column holds one quantity;
            // every time has two decimals, as the page's heatmap labels (``cellSeconds(_:)``).
            var o = "| participant | " + t.columns.map {
                "\(MarkdownText.code($0.string)) (order \($0.order), length \($0.length))"
            }.joined(separator: " | ") + " |\n"
            o += "|---|" + t.columns.map { _ in "---:|" }.joined() + "\n"
            for p in t.complete {
                o += "| \(cell(p.id)) | " + p.values.map { $0.map(cellSeconds) ?? "" }.joined(separator: " | ") + " |\n"
            }
            if !t.incomplete.isEmpty {
                o += "| **incomplete** |" + t.columns.map { _ in " |" }.joined() + "\n"
                for p in t.incomplete {
                    o += "| \(cell(p.id)) | " + p.values.map { $0.map(cellSeconds) ?? "" }.joined(separator: " | ")
                        + " |\n"
                }
            }
            return o
        }
        // (The Appendix B table has every participant: complete ones, then incomplete ones.)
        var o = "# Memorization study\n\n\(study.complete.count + study.incomplete.count) participants, "
            + "\(study.complete.count) complete.\n\n"
        o += "## Mean entry time per participant and string (s)\n\n" + table(study)
        for c in cohorts { o += "\n## Desktop cohort \(cell(c.table.name))\n\n" + table(c.table) }
        return o
    }
}
