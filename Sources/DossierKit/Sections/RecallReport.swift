#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

// MARK: - The participant report (HTML model and Markdown)

enum RecallReport {
    /// The participant page's model (``ParticipantPageModel``).
    static func model(_ r: ParticipantResult, slug: String) -> ParticipantPageModel {
        let reached = r.strings.filter(\.reached)
        let rows = reached.map { s in
            ParticipantPageModel.StringRow(s, entryTableHTML: entryTable(s.entries))
        }
        var m = ParticipantPageModel(
            participant: r.participant, slug: slug,
            source: r.source == .desktop ? "desktop Raw Data (imported)" : "mobile event log",
            device: r.device, complete: r.complete,
            status: r.complete
                ? "complete"
                : "incomplete (the log ends at \(RecallRender.seconds(r.lastEventMs)) s without the Thank You page)",
            sessionTotal: RecallRender.duration(r.sessionTotalMs), sessionSpan: sessionSpan(r), medians: medians(r),
            reachedCount: reached.count,
            medianHold: RecallRender.ms(r.medianHold), medianDD: RecallRender.ms(r.medianDownDown),
            medianUD: RecallRender.ms(r.medianUpDown), medianUU: RecallRender.ms(r.medianUpUp),
            warnings: r.warnings.map(\.description), strings: rows, stringsTableHTML: stringsTable(reached),
            practiceTableHTML: reached.contains { !$0.practice.isEmpty } ? practiceTable(reached) : nil,
            practice: reached.flatMap { s in s.practice.map { ParticipantPageModel.PracticeRow(n: s.number, entry: $0) }
            },
            recall: r.recall.map { rc in
                ParticipantPageModel.RecallPart(
                    total: RecallRender.seconds(rc.totalMs), typed: rc.fields,
                    fieldsTableHTML: rc.fields.isEmpty ? nil : fieldsTable(rc.fields),
                    recalled: rc.stringsRecalled.count)
            },
            timelineSVG: timeline(r))
        // The entries as points of the entry-time chart, correct and incorrect, in one
        // pass (a list of (length, entry) pairs copied every entry twice).
        var ok: [XYPoint] = [], bad: [XYPoint] = []
        for s in reached {
            for e in s.entries {
                let point = XYPoint(x: Double(s.length), y: Double(e.durationMs) / 1000, label: "field \(e.field)")
                if e.correct { ok.append(point) } else { bad.append(point) }
            }
        }
        if !ok.isEmpty || !bad.isEmpty {
            m.entrySVG = Charts.scatter(
                series: [XYSeries(name: "correct", points: ok), XYSeries(name: "incorrect", points: bad)],
                options: ChartOptions(
                    title: "Entry time against string length",
                    description:
                        "Each individual entry on the Entry pages: seconds from the first to the last keystroke "
                            + "against the target's length.",
                    xLabel: "string length (characters)", yLabel: "entry time (s)", yMin: 0))
            let cats = reached.map { "\($0.number)" }
            m.errorsSVG = Charts.bar(categories: cats, series: [
                BarSeries(name: "incorrect entries", values: reached.map { Double($0.incorrectEntries) }),
                BarSeries(name: "re-keys", values: reached.map { Double($0.rekeys) }),
                BarSeries(name: "backspaces", values: reached.map { Double($0.deletions) }),
                BarSeries(name: "Verify Not OK", values: reached.map { Double($0.verifyFailures) }),
            ], options: ChartOptions(title: "Errors and re-keys per string",
                    description:
                        "Counts per string: entries not equal to the target, re-keyed fields, keystrokes that deleted "
                            + "characters, and failed Verify attempts.",
                                     xLabel: "string", yLabel: "count", yMin: 0))
            // Each interval pooled over every entry, as the whole milliseconds they are
            // (``Charts/boxPlot(wholeGroups:options:)``: no `Double` made of each).
            func pooled(_ intervals: (Dynamics) -> [Int]) -> [Int] {
                var values: [Int] = []
                for s in reached {
                    for e in s.entries { values.append(contentsOf: intervals(e.dynamics)) }
                }
                return values
            }
            let groups = [("hold", pooled { $0.hold }), ("down-down", pooled { $0.downDown }),
                          ("up-down", pooled { $0.upDown }), ("up-up", pooled { $0.upUp })]
                .filter { !$0.1.isEmpty }
                .map { (name: $0.0, values: $0.1) }
            if !groups.isEmpty {
                m.dynamicsSVG = Charts.boxPlot(wholeGroups: groups, options: ChartOptions(
                    title: "Keystroke dynamics (Entry pages)",
                        description:
                            "Distribution of key hold times and of down-down, up-down and up-up latencies between "
                                + "consecutive keys, in milliseconds, over all entries.",
                    yLabel: "milliseconds"))
            }
        }
        return m
    }

    static func timeline(_ r: ParticipantResult) -> String {
        var lanes: [TimelineLane] = []
        for s in r.strings where s.reached {
            var spans: [TimelineSpan] = []
            for v in s.memorizeViews {
                spans.append(
                    TimelineSpan(
                        start: Double(v.start) / 1000, end: Double(v.end) / 1000, label: "Memorize \(v.view)",
                        category: "Memorize"))
            }
            for v in s.verifyViews {
                spans.append(
                    TimelineSpan(
                        start: Double(v.start) / 1000, end: Double(v.end) / 1000, label: "Verify \(v.view)",
                        category: "Verify"))
            }
            if let st = s.entryStart {
                spans.append(
                    TimelineSpan(
                        start: Double(st) / 1000, end: Double(st + (s.entryTotalMs ?? 0)) / 1000, label: "Entry",
                        category: "Entry"))
            }
            lanes.append(TimelineLane(name: "String \(s.number)", spans: spans))
        }
        if let rc = r.recall {
            lanes.append(
                TimelineLane(
                    name: "Recall",
                    spans: [
                        TimelineSpan(
                            start: Double(rc.start) / 1000, end: Double(rc.end) / 1000, label: "Recall",
                            category: "Recall")
                    ]))
        }
        return Charts.timeline(lanes: lanes, options: ChartOptions(
                title: "Phase timeline",
                description: "When each page of each string was on screen, in seconds since Begin.",
            height: Double(max(160, 40 + 26 * lanes.count)), xLabel: "seconds since Begin"))
    }

    /// What the session total runs from and to, as it was measured (recall-measures.md,
    /// "Session"): to the last Recall keystroke only for a participant who reached it.
    static func sessionSpan(_ r: ParticipantResult) -> String {
        guard r.sessionStart != nil else { return "no Memorize page was shown" }
        if r.complete, let rc = r.recall {
            return rc.lastKey != nil ? "first Memorize display to last Recall keystroke"
                : "first Memorize display to leaving the Recall page"
        }
        return "first Memorize display to the log's last event"
    }

    /// The four medians, each in ms or "not measured" (no pair of that kind).
    static func medians(_ r: ParticipantResult) -> String {
        let all = [("hold", r.medianHold), ("down-down", r.medianDownDown), ("up-down", r.medianUpDown),
                   ("up-up", r.medianUpUp)]
        if all.allSatisfy({ $0.1 == nil }) { return "none (no keystrokes were timed on an Entry page)" }
        return all.map { name, v in v.map { "\(name) \(RecallRender.ms($0)) ms" } ?? "\(name) not measured" }
            .joined(separator: ", ")
    }

    /// The same report as Markdown (report.md).
    static func markdown(_ r: ParticipantResult, slug: String) -> String {
        func cell(_ s: String) -> String { MarkdownText.text(s) }
        var o = "# Participant \(cell(r.participant))\n\n"
        o += "- Source: \(r.source == .desktop ? "desktop Raw Data (imported)" : "mobile event log")\n"
        let status = r.complete
            ? "complete"
            : "incomplete (the log ends at \(RecallRender.seconds(r.lastEventMs)) s without the Thank You page)"
        o += "- Status: \(status)\n"
        o += "- Session total (\(sessionSpan(r))): \(RecallRender.seconds(r.sessionTotalMs)) s\n"
        o += "- Keystroke medians on the Entry pages: \(medians(r))\n\n"
        if !r.warnings.isEmpty {
            o += "## Warnings\n\n" + r.warnings.map { "- \(cell($0.description))\n" }.joined() + "\n"
        }
        o +=
            "## Strings\n\n| # | target | length | Memorize views | Memorize s | Verify Not OK | Verify s | entries | "
                + "incorrect | re-keys | backspaces | Entry s | mean entry s | correct at Done |\n"
        o += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        let rows: [[String]] = r.strings.filter(\.reached).map { s in
            [
                "\(s.number)", MarkdownText.code(s.target), "\(s.length)", "\(s.memorizeViews.count)",
                RecallRender.seconds(s.memorizeTotalMs),
                "\(s.verifyFailures)", RecallRender.seconds(s.verifyTotalMs), "\(s.entries.count)",
                "\(s.incorrectEntries)", "\(s.rekeys)",
                "\(s.deletions)", RecallRender.seconds(s.entryTotalMs), RecallRender.seconds(s.meanEntrySeconds),
                "\(s.finalCorrect)/10"
            ]
        }
        // One number of decimals per column, as on the page (``TableMarkup/NumberColumn``).
        let columns = (0..<14).map { c in TableMarkup.NumberColumn(rows.map { $0[c] }).cells }
        for i in rows.indices { o += "| " + columns.map { $0[i] }.joined(separator: " | ") + " |\n" }
        if let rc = r.recall {
            o +=
                "\n## Recall\n\nTotal: \(RecallRender.seconds(rc.totalMs)) s; strings recalled exactly: "
                    + "\(rc.stringsRecalled.count)\n\n"
            if !rc.fields.isEmpty {
                o += "| field | text | matches |\n|---|---|---|\n"
                for f in rc.fields {
                    o +=
                        "| \(f.field) | \(MarkdownText.code(f.text)) | \(f.matches.map { "string \($0)" } ?? "False") "
                            + "|\n"
                }
            }
        }
        o += "\nData: raw.csv (one row per event), rolled-up.csv (every measure, one per row), participant.json "
            + "(everything computed).\n"
        return o
    }
}
