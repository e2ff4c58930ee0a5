import Foundation
import RecallStudy
import Render
import Testing
@testable import DossierKit

/// The participant page rendered from its typed model (``ParticipantPageModel``) against
/// the `[String: Any]` model it replaced (kept below as the reference), over simulated
/// sessions: finished and abandoned, key-pair and tap logs, two string sets (one with
/// text needing HTML escaping), sessions with warnings.
struct RecallParticipantModelTests {
    static let template: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Templates/recall/participant.mustache")
        return try! String(contentsOf: url, encoding: .utf8)
    }()

    @Test func typedModelRendersAsTheDictionary() throws {
        let templates = try TemplateSet(builtIn: [.init(name: "recall/participant", text: Self.template, file: "participant.mustache")],
                                        folders: [])
        let sets = [StringSet.nistDesktop, try StringSet.parse(Data("""
            a<b&c
            "quoted"
            it's
            x>y z
            日本語abc
            =SUM(1)
            -x1
            naïve
            tab\\t;9
            plain

            """.utf8), file: "edge.txt")]
        var rendered = 0
        for (i, s) in try RecallRenderTests.simulatedSessions(sets, seed: 70, count: 8).enumerated() {
            let typed = RecallReport.model(s.result, slug: "p\(i)")
            let reference = Self.dictionary(s.result, slug: "p\(i)", charts: typed)
            #expect(try templates.render("recall/participant", typed) == templates.render("recall/participant", reference), "\(s.label)")
            rendered += 1
        }
        #expect(rendered == 32)
    }

    /// The individual-entries tables, written in their final form (``RecallReport/entryTable(_:)``)
    /// and passed over by ``TableMarkup``, against the plain tables of round five marked
    /// up by the whole table pass: the page content after the pass is the same.
    @Test func finalEntryTablesReadAsTheTablePassMakesThem() throws {
        let plainTable = """
              <table>
                <thead><tr><th>order</th><th>field</th><th>time (s)</th><th>correct</th><th>re-key</th><th>keystrokes</th><th>backspaces</th><th>median hold (ms)</th><th>median down-down (ms)</th></tr></thead>
                <tbody>
            {{{entryRowsHTML}}}</tbody>
              </table>

            """
        let finalLine = "  {{{entryTableHTML}}}\n"
        #expect(Self.template.contains(finalLine))
        let templates = try TemplateSet(builtIn: [
            .init(name: "recall/participant", text: Self.template, file: "participant.mustache"),
            .init(name: "reference", text: Self.template.replacingOccurrences(of: finalLine, with: plainTable), file: "reference.mustache"),
        ], folders: [])
        let sets = [StringSet.nistDesktop, try StringSet.parse(Data("a<b&c\n\"q\"\nit's\nx>y z\n日本語abc\n=SUM(1)\n-x1\nnaïve\ntab\\t;9\nplain\n".utf8), file: "edge.txt")]
        var finalTables = 0, sessions = 0
        for (i, s) in try RecallRenderTests.simulatedSessions(sets, seed: 71, count: 8).enumerated() {
            let typed = RecallReport.model(s.result, slug: "p\(i)")
            var reference = Self.dictionary(s.result, slug: "p\(i)", charts: typed)
            reference["strings"] = (reference["strings"] as! [[String: Any]]).enumerated().map { k, row in
                row.merging(["entryRowsHTML": Self.plainEntryRows(s.result.strings.filter(\.reached)[k].entries)]) { $1 }
            }
            let page = try templates.render("recall/participant", typed)
            finalTables += page.components(separatedBy: TableMarkup.finalTableTag).count - 1
            #expect(TableMarkup.enhance(page) == TableMarkup.enhance(try templates.render("reference", reference)), "\(s.label)")
            sessions += 1
        }
        #expect(sessions == 32 && finalTables > 100)
    }

    /// The individual-entries rows as round five wrote them, for the table pass to mark up.
    static func plainEntryRows(_ entries: [TypedEntry]) -> String {
        entries.map { e in
            "<tr><td>\(e.order)</td><td>\(e.field)</td><td>\(RecallRender.seconds(e.durationMs))</td><td>\(e.correct ? "True" : "False")</td>"
                + "<td>\(e.rekey ? "yes" : "")</td><td>\(e.keystrokes)</td><td>\(e.deletions)</td>"
                + "<td>\(RecallRender.ms(e.dynamics.medianHold))</td><td>\(RecallRender.ms(e.dynamics.medianDownDown))</td></tr>\n"
        }.joined()
    }

    /// The model as it was built before ``ParticipantPageModel`` (round four), with the
    /// chart SVGs of `charts`.
    static func dictionary(_ r: ParticipantResult, slug: String, charts: ParticipantPageModel) -> [String: Any] {
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
                "entryTableHTML": RecallReport.entryTable(s.entries),
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
            "sessionTotal": RecallRender.duration(r.sessionTotalMs),
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
                    ["field": f.field, "text": f.text, "correct": f.correct, "matches": f.matches.map { "string \($0)" } ?? "no string"]
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
            if d.contains(where: { !$0.hold.isEmpty || !$0.downDown.isEmpty || !$0.upDown.isEmpty || !$0.upUp.isEmpty }) {
                m["hasDynamics"] = true
                m["dynamicsSVG"] = charts.dynamicsSVG ?? ""
            }
        }
        return m
    }

}
