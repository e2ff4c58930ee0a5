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
        for (k, strings) in sets.enumerated() {
            for taps in [false, true] {
                var sim = Simulator(strings: strings, seed: UInt64(70 + k))
                sim.tapsOnly = taps
                sim.abandonRate = 0.5
                for index in 1...8 {
                    let log = try NativeLog.parse(Data(sim.log(index: index).utf8), file: "p.jsonl")
                    let result = try Analyzer.analyze(log, strings: strings)
                    let typed = try templates.render("recall/participant", RecallReport.model(result, slug: "p\(index)"))
                    let reference = try templates.render("recall/participant", Self.dictionary(result, slug: "p\(index)"))
                    #expect(typed == reference, "set \(k), taps \(taps), participant \(index)")
                    rendered += 1
                }
            }
        }
        #expect(rendered == 32)
    }

    /// The model as it was built before ``ParticipantPageModel`` (round four).
    static func dictionary(_ r: ParticipantResult, slug: String) -> [String: Any] {
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
                "entryRowsHTML": RecallReport.entryRows(s.entries),
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

}
