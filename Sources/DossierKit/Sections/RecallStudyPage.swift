import Foundation
import RecallStudy
import Render

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
        // Entry times (s) by string, in participant and entry order: one pass, not one per string.
        var timesOf = Array(repeating: [Double](), count: StringSet.count)
        for p in everyone {
            for e in p.contribution.entries where e.string >= 1 && e.string <= StringSet.count {
                timesOf[e.string - 1].append(Double(e.duration) / 1000)
            }
        }
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
            let times = timesOf[n - 1]
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
            let times = sp.contribution.entries.map { Double($0.duration) / 1000 }
            return ["slug": p.slug, "participant": s.participant, "complete": s.complete,
                    "source": s.source == .desktop ? "desktop" : "mobile", "sourceFile": sp.sourceFile,
                    "sessionTotal": RecallRender.duration(s.sessionTotalMs),
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
        func cell(_ s: String) -> String { MarkdownText.text(s) }
        func table(_ t: CohortTable) -> String {
            var o = "| participant | " + t.columns.map { MarkdownText.code($0.string) }.joined(separator: " | ") + " |\n"
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
