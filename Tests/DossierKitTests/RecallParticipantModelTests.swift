import Foundation
import RecallStudy
import Render
import Testing
import UntypedModels
@testable import DossierKit

/// The participant page rendered from its typed model (``ParticipantPageModel``), whose
/// tables are all written final (``RecallReport/stringsTable(_:)`` and its siblings),
/// against round five's page: round five's template (kept in Fixtures/recall) with plain
/// tables, rendered from the `[String: Any]` model of round four (kept below), both after
/// the table pass. Over simulated sessions: finished and abandoned, key-pair and tap
/// logs, two string sets (one with text needing HTML escaping, numbers, a formula, an
/// apostrophe), sessions with warnings.
struct RecallParticipantModelTests {
    static let template = Self.text("Templates/recall/participant.mustache")

    /// Round five's template, its individual-entries tables plain again (as round four
    /// wrote them), so the table pass makes every table of the page.
    static let roundFiveTemplate: String = {
        let plainTable = """
              <table>
                <thead><tr><th>order</th><th>field</th><th>time \
            (s)</th><th>correct</th><th>re-key</th><th>keystrokes</th><th>backspaces</th><th>median hold \
            (ms)</th><th>median down-down (ms)</th></tr></thead>
                <tbody>
            {{{entryRowsHTML}}}</tbody>
              </table>

            """
        let t = Self.text("Tests/DossierKitTests/Fixtures/recall/participant-plain-tables.mustache")
        precondition(t.contains("  {{{entryTableHTML}}}\n"))
        // Issue #43: the session total says what it runs to, the medians say "not measured".
        let facts = [("(first Memorize display to last Recall keystroke)", "({{sessionSpan}})"),
            (
                "hold {{medianHold}} ms, down-down {{medianDD}} ms, up-down {{medianUD}} ms, up-up {{medianUU}} ms",
                "{{medians}}"
            )
        ]
        return facts.reduce(t.replacingOccurrences(of: "  {{{entryTableHTML}}}\n", with: plainTable)) {
            precondition($0.contains($1.0))
            return $0.replacingOccurrences(of: $1.0, with: $1.1)
        }
    }()

    static func text(_ path: String) -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(path)
        return try! String(contentsOf: url, encoding: .utf8)
    }

    static let sets: [StringSet] = [StringSet.nistDesktop, try! StringSet.parse(Data("""
        a<b&c
        "quoted"
        it's
        x>y z
        日本語abc
        =SUM(1)
        -x1
        1234
        tab\\t;9
        true

        """.utf8), file: "edge.txt"),
        // Every target a number: the target and Recall text columns (`<code>`) are `num`.
        try! StringSet.parse(Data("12\n3.5\n1,234\n-7\n0.25\n99\n100\n5\n42\n8.125\n".utf8), file: "numbers.txt")]

    @Test func finalTablesReadAsTheTablePassMakesThem() throws {
        let templates = try TemplateSet(builtIn: [
            .init(name: "recall/participant", text: Self.template, file: "participant.mustache"),
            .init(name: "reference", text: Self.roundFiveTemplate, file: "reference.mustache"),
        ], folders: [])
        var finalTables = 0, sessions = 0
        for seed: UInt64 in [70, 71] {
            for (i, s) in try RecallRenderTests.simulatedSessions(Self.sets, seed: seed, count: 8).enumerated() {
                let typed = RecallReport.model(s.result, slug: "p\(i)")
                let page = try templates.render("recall/participant", typed)
                let reference = try templates.render(
                    "reference", Self.dictionary(s.result, slug: "p\(i)", charts: typed))
                // Every table of the page is final: the pass only drops the markers.
                let tables = page.components(separatedBy: "<table").count - 1
                #expect(page.components(separatedBy: TableMarkup.finalTableTag).count - 1 == tables, "\(s.label)")
                finalTables += tables
                // The headings' ids, written by today's template, are the ones the page's
                // contents (``PageContents``) give round five's.
                #expect(TableMarkup.enhance(PageContents.add(to: page)?.html ?? page)
                        == TableMarkup.enhance(PageContents.add(to: reference)?.html ?? reference), "\(s.label)")
                #expect(PageContents.add(to: page)?.html == page, "\(s.label)")
                sessions += 1
            }
        }
        #expect(sessions == 96 && finalTables > 900)
    }

    /// A project's own copy of round five's template (`templates/recall/participant.mustache`)
    /// still finds every field it used: rendered with the typed model it gives the bytes
    /// it gives with the dictionary of round four.
    @Test func roundFivesTemplateRendersAsWithTheDictionary() throws {
        let templates = try TemplateSet(builtIn: [
                .init(
                    name: "plain-tables",
                    text: Self.text("Tests/DossierKitTests/Fixtures/recall/participant-plain-tables.mustache"),
                    file: "plain-tables.mustache")
        ], folders: [])
        var sessions = 0
        for (i, s) in try RecallRenderTests.simulatedSessions(Self.sets, seed: 72, count: 4).enumerated() {
            let typed = RecallReport.model(s.result, slug: "p\(i)")
            #expect(
                try templates.render("plain-tables", typed)
                    == templates.render("plain-tables", Self.dictionary(s.result, slug: "p\(i)", charts: typed)),
                "\(s.label)")
            sessions += 1
        }
        #expect(sessions == 24)
    }

    /// The individual-entries rows as round five wrote them, for the table pass to mark up.
    static func plainEntryRows(_ entries: [TypedEntry]) -> String {
        entries.map { e in
            "<tr><td>\(e.order)</td><td>\(e.field)</td><td>\(RecallRender.seconds(e.durationMs))</td>"
                + "<td>\(e.correct ? "True" : "False")</td>"
                + "<td>\(e.rekey ? "yes" : "")</td><td>\(e.keystrokes)</td><td>\(e.deletions)</td>"
                + "<td>\(RecallRender.ms(e.dynamics.medianHold))</td>"
                + "<td>\(RecallRender.ms(e.dynamics.medianDownDown))</td></tr>\n"
        }.joined()
    }

    /// The model as it was built before ``ParticipantPageModel`` (round four), with the
    /// chart SVGs of `charts` and the individual-entries rows of round five.
    static func dictionary(_ r: ParticipantResult, slug: String, charts: ParticipantPageModel) -> [String: Any] {
        let reached = r.strings.filter(\.reached)
        var rows: [[String: Any]] = []
        for s in reached {
            rows.append([
                "n": s.number, "target": s.target, "length": s.length,
                "memorizeViews": s.memorizeViews.count, "memorizeTotal": RecallRender.seconds(s.memorizeTotalMs),
                "verifyViews": s.verifyViews.count, "verifyFailures": s.verifyFailures,
                "verifyTotal": RecallRender.seconds(s.verifyTotalMs),
                "entries": s.entries.count, "incorrect": s.incorrectEntries, "rekeys": s.rekeys,
                "deletions": s.deletions,
                "entryTotal": RecallRender.seconds(s.entryTotalMs),
                "meanEntry": RecallRender.seconds(s.meanEntrySeconds),
                "sdEntry": RecallRender.seconds(StudyStats.sd(s.entries.map { Double($0.durationMs) / 1000 })),
                "finalCorrect": s.finalCorrect, "toLastKey": RecallRender.seconds(s.memorizeToLastEntryKeyMs),
                "done": s.completed,
                "entryRowsHTML": Self.plainEntryRows(s.entries), "entryTableHTML": RecallReport.entryTable(s.entries),
            ])
        }
        var m: [String: Any] = [
            "participant": r.participant, "slug": slug,
            "source": r.source == .desktop ? "desktop Raw Data (imported)" : "mobile event log",
            "device": r.device ?? "", "hasDevice": r.device != nil,
            "complete": r.complete,
            "status": r.complete
                ? "complete"
                : "incomplete (the log ends at \(RecallRender.seconds(r.lastEventMs)) s without the Thank You page)",
            "practice": reached.flatMap { s in s.practice.map { e -> [String: Any] in
                    [
                        "n": s.number, "page": e.page.title, "order": e.order,
                        "duration": RecallRender.seconds(e.durationMs),
                        "correct": e.correct, "keystrokes": e.keystrokes, "deletions": e.deletions,
                        "medianHold": RecallRender.ms(e.dynamics.medianHold),
                        "medianDD": RecallRender.ms(e.dynamics.medianDownDown),
                        "medianUD": RecallRender.ms(e.dynamics.medianUpDown),
                        "medianUU": RecallRender.ms(e.dynamics.medianUpUp)
                    ]
            } },
            "hasPractice": reached.contains { !$0.practice.isEmpty },
            "sessionTotal": RecallRender.duration(r.sessionTotalMs),
            "sessionSpan": RecallReport.sessionSpan(r), "medians": RecallReport.medians(r),
            "reachedCount": reached.count,
            "strings": rows,
            "warnings": r.warnings.map { ["text": $0.description] },
            "hasWarnings": !r.warnings.isEmpty,
            "medianHold": RecallRender.ms(r.medianHold), "medianDD": RecallRender.ms(r.medianDownDown),
            "medianUD": RecallRender.ms(r.medianUpDown), "medianUU": RecallRender.ms(r.medianUpUp),
            "timelineSVG": RecallReport.timeline(r),
        ]
        m["hasRecall"] = r.recall != nil
        m["hasEntries"] = false
        m["hasDynamics"] = false
        if let rc = r.recall {
            m["recall"] = [
                "total": RecallRender.seconds(rc.totalMs),
                "fields": rc.fields.map { f -> [String: Any] in
                        [
                            "field": f.field, "text": f.text, "correct": f.correct,
                            "matches": f.matches.map { "string \($0)" } ?? "no string"
                        ]
                },
                "hasFields": !rc.fields.isEmpty,
                "recalled": rc.stringsRecalled.count,
            ] as [String: Any]
        }
        // The charts are drawn by the same code for both models (they are not what this
        // test compares): their SVGs come from the typed model, the flags from the rules here.
        let entries = reached.flatMap(\.entries)
        if !entries.isEmpty {
            m["hasEntries"] = true
            m["entrySVG"] = charts.entrySVG ?? ""
            m["errorsSVG"] = charts.errorsSVG ?? ""
            let d = entries.map(\.dynamics)
            if d.contains(where: { !$0.hold.isEmpty || !$0.downDown.isEmpty || !$0.upDown.isEmpty || !$0.upUp.isEmpty })
            {
                m["hasDynamics"] = true
                m["dynamicsSVG"] = charts.dynamicsSVG ?? ""
            }
        }
        return m
    }

}
