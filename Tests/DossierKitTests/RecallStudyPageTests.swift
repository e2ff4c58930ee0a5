import Foundation
@testable import RecallStudy
@testable import Render
import Testing
import UntypedModels
@testable import DossierKit

/// The summary page's participant table is written as the page shows it, row by row
/// (``RecallStudyPage/participantsTable(_:up:emit:)``, spliced into the rendered page):
/// byte for byte what the template used to give after the page's table pass — a row per
/// participant through Mustache, then the pass's column rules over the whole table.
@Suite struct RecallStudyPageTests {
    /// The template's table before round six, and its region.
    // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
    static let oldTemplate = """
        <div class="table-wrap table-scroll" role="region" tabindex="0" aria-label="Participants">
        <table class="data">
          <thead><tr><th>participant</th><th>source</th><th>status</th><th>session</th><th>entries (n)</th><th>mean \
        entry (s)</th><th>SD (s)</th><th>strings recalled</th><th>warnings</th></tr></thead>
          <tbody>{{#participants}}<tr><td><a href="{{up}}participants/{{slug}}/index.html">{{participant}}</a> <span \
        class="muted">{{sourceFile}}</span></td><td>{{source}}</td><td>{{#complete}}complete{{/complete}}{{^complete}}incomplete{{/complete}}</td><td>{{sessionTotal}}</td><td>{{entryN}}</td><td>{{meanEntry}}</td><td>{{sdEntry}}</td><td>{{recalled}}</td><td>{{warnings}}</td></tr>{{/participants}}</tbody>
        </table>
        </div>
        """
    // END DATA TABLE

    static func oldTable(_ rows: [StudyAggregate.Row], up: String?) throws -> String {
        let set = try TemplateSet(builtIn: [.init(name: "t", text: oldTemplate, file: "t")], folders: [])
        var model: [String: Any] = ["participants": rows.map { r -> [String: Any] in
            ["slug": r.slug, "participant": r.participant, "complete": r.complete,
             "source": r.desktop ? "desktop" : "mobile", "sourceFile": r.sourceFile,
             "sessionTotal": RecallRender.duration(r.sessionTotalMs),
             "entryN": r.entryCount, "meanEntry": RecallRender.seconds(r.meanEntry),
             "sdEntry": RecallRender.seconds(r.sdEntry), "recalled": r.recalled, "warnings": r.warnings]
        }]
        if let up { model["up"] = up }
        return TableMarkup.enhance(try set.render("t", model))
    }

    static func newTable(_ rows: [StudyAggregate.Row], up: String) -> String {
        var table = ""
        RecallStudyPage.participantsTable(rows, up: up) { table += $0 }
        return "<div class=\"table-wrap table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Participants\">\n"
            + table + "\n</div>"
    }

    static func row(_ i: Int, session: Int?, mean: Double?, sd: Double?, desktop: Bool = false) -> StudyAggregate.Row {
        StudyAggregate.Row(
            slug: "S\(i)", participant: i % 5 == 0 ? "P<\(i)>&'\"" : "\(i)", sourceFile: "data/logs/S\(i) \"x\".jsonl",
            complete: i % 3 != 0, desktop: desktop, sessionTotalMs: session, entryCount: i * 7 % 40,
            meanEntry: mean, sdEntry: sd, recalled: i % 11, warnings: i % 2)
    }

    @Test func theFinalTableIsWhatTheTemplateAndThePassWrote() throws {
        let study = try RecallRowBlocksTests.participants(9, seed: 21)
        var a = StudyAggregate(name: "This study", strings: RecallRowBlocksTests.strings)
        for (i, p) in study.enumerated() { a.add(slug: "S\(i)", p.summary, p.contribution, sourceFile: p.sourceFile) }
        // Sessions over and under a minute (durations), missing values, numbers whose
        // decimals differ (padding), a desktop participant.
        let cases: [[StudyAggregate.Row]] = [
            a.rows,
            Array(a.rows.prefix(1)),
            (1...30).map {
                Self.row($0, session: $0 * 1_700, mean: Double($0) / 4, sd: $0 % 4 == 0 ? nil : Double($0) / 3)
            },
            (1...6).map { Self.row($0, session: nil, mean: nil, sd: nil, desktop: $0 == 2) },
            (1...6).map { Self.row($0, session: $0 == 3 ? 1_234_000 : 45_000 + $0, mean: 1, sd: 2.5) },
        ]
        for (k, rows) in cases.enumerated() {
            for up in ["", "../../"] {
                #expect(
                    Self.newTable(rows, up: up) == (try Self.oldTable(rows, up: up.isEmpty ? nil : up)),
                    "case \(k), up \(up)")
            }
        }
    }
}
