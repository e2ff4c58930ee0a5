#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

// MARK: - The participant page's typed model (Templates/recall/participant.mustache)

/// What `recall/participant` shows, one field per name the template uses (DESIGN.md:
/// typed page models). Handed to Dossier's Mustache renderer without an untyped
/// dictionary per page and row, whose every look-up cast its value (docs/perf-study.md,
/// "Round five"). The tables are written final (``RecallReport/stringsTable(_:)`` and its
/// siblings); the row fields round five's template used (`strings[].memorizeTotal`,
/// `practice[]`, `recall.fields[]`, …) are still there for a project's own
/// `templates/recall/participant.mustache`, made only when a template asks for them.
/// `RecallParticipantModelTests` renders round five's template with this model and with
/// the dictionary it replaced, and today's against round five's after the table pass.
struct ParticipantPageModel: TemplateRecord {
    var participant: String
    var slug: String
    var source: String
    var device: String?
    var complete: Bool
    var status: String
    var sessionTotal: String
    /// What the session total runs from and to (``RecallReport/sessionSpan(_:)``).
    var sessionSpan: String
    /// The Entry-page keystroke medians as a sentence (``RecallReport/medians(_:)``).
    var medians: String
    var reachedCount: Int
    var medianHold: String, medianDD: String, medianUD: String, medianUU: String
    var warnings: [String]
    /// The strings reached, for the individual-entries part.
    var strings: [StringRow]
    /// The Strings table, in its final HTML (``RecallReport/stringsTable(_:)``).
    var stringsTableHTML: String
    /// The practice-typing table, when a string has a practice entry.
    var practiceTableHTML: String?
    /// Its rows, for a template of its own.
    var practice: [PracticeRow]
    /// Present when the participant reached the Recall page.
    var recall: RecallPart?
    var timelineSVG: String
    /// The entry-time and errors charts: present when there is at least one entry.
    var entrySVG: String?, errorsSVG: String?
    /// The keystroke-dynamics box plot: present when an entry has a keystroke interval.
    var dynamicsSVG: String?

    static let fields = TemplateFields<Self>([
        .text("participant") { $0.participant },
        .text("slug") { $0.slug }.forOwnTemplates(),
        .text("source") { $0.source },
        .text("device") { $0.device ?? "" },
        .bool("hasDevice") { $0.device != nil },
        .bool("complete") { $0.complete }.forOwnTemplates(),
        .text("status") { $0.status },
        .text("sessionTotal") { $0.sessionTotal },
        .text("sessionSpan") { $0.sessionSpan },
        .text("medians") { $0.medians },
        .int("reachedCount") { $0.reachedCount },
        .text("medianHold") { $0.medianHold }.forOwnTemplates(),
        .text("medianDD") { $0.medianDD }.forOwnTemplates(),
        .text("medianUD") { $0.medianUD }.forOwnTemplates(),
        .text("medianUU") { $0.medianUU }.forOwnTemplates(),
        .list("warnings", TextItem.self) { $0.warnings.map(TextItem.init) },
        .bool("hasWarnings") { !$0.warnings.isEmpty },
        .list("strings", StringRow.self) { $0.strings },
        .text("stringsTableHTML") { $0.stringsTableHTML },
        .bool("hasPractice") { $0.practiceTableHTML != nil },
        .maybeText("practiceTableHTML") { $0.practiceTableHTML },
        .list("practice", PracticeRow.self) { $0.practice }.forOwnTemplates(),
        .bool("hasRecall") { $0.recall != nil },
        .maybeObject("recall", RecallPart.self) { $0.recall },
        .text("timelineSVG") { $0.timelineSVG },
        .bool("hasEntries") { $0.entrySVG != nil },
        .maybeText("entrySVG") { $0.entrySVG },
        .maybeText("errorsSVG") { $0.errorsSVG },
        .bool("hasDynamics") { $0.dynamicsSVG != nil },
        .maybeText("dynamicsSVG") { $0.dynamicsSVG },
    ])

    /// One string reached: one `<details>` of individual entries (and, for a template of
    /// its own, one row of the Strings table). Numbers only, formatted when asked for: the
    /// row keeps no entry of the string alive until the page is written.
    struct StringRow: TemplateRecord {
        var n: Int, target: String, length: Int, entries: Int
        var memorizeViews: Int, memorizeTotalMs: Int?, verifyViews: Int, verifyFailures: Int, verifyTotalMs: Int?
        var incorrect: Int, rekeys: Int, deletions: Int, entryTotalMs: Int?
        var meanEntrySeconds: Double?, sdEntrySeconds: Double?, finalCorrect: Int, toLastKeyMs: Int?, done: Bool
        /// The individual-entries table, already in its final HTML (``RecallReport/entryTable(_:)``).
        var entryTableHTML: String

        init(_ s: StringResult, entryTableHTML: String) {
            n = s.number; target = s.target; length = s.length; entries = s.entries.count
            memorizeViews = s.memorizeViews.count; memorizeTotalMs = s.memorizeTotalMs
            verifyViews = s.verifyViews.count; verifyFailures = s.verifyFailures; verifyTotalMs = s.verifyTotalMs
            incorrect = s.incorrectEntries; rekeys = s.rekeys; deletions = s.deletions; entryTotalMs = s.entryTotalMs
            meanEntrySeconds = s.meanEntrySeconds
            sdEntrySeconds = StudyStats.sd(s.entries.map { Double($0.durationMs) / 1000 })
            finalCorrect = s.finalCorrect; toLastKeyMs = s.memorizeToLastEntryKeyMs; done = s.completed
            self.entryTableHTML = entryTableHTML
        }

        static let fields = TemplateFields<Self>([
            .int("n") { $0.n },
            .text("target") { $0.target },
            .int("entries") { $0.entries },
            .text("entryTableHTML") { $0.entryTableHTML },
            .int("length") { $0.length }.forOwnTemplates(),
            .int("memorizeViews") { $0.memorizeViews }.forOwnTemplates(),
            .text("memorizeTotal") { RecallRender.seconds($0.memorizeTotalMs) }.forOwnTemplates(),
            .int("verifyViews") { $0.verifyViews }.forOwnTemplates(),
            .int("verifyFailures") { $0.verifyFailures }.forOwnTemplates(),
            .text("verifyTotal") { RecallRender.seconds($0.verifyTotalMs) }.forOwnTemplates(),
            .int("incorrect") { $0.incorrect }.forOwnTemplates(),
            .int("rekeys") { $0.rekeys }.forOwnTemplates(),
            .int("deletions") { $0.deletions }.forOwnTemplates(),
            .text("entryTotal") { RecallRender.seconds($0.entryTotalMs) }.forOwnTemplates(),
            .text("meanEntry") { RecallRender.seconds($0.meanEntrySeconds) }.forOwnTemplates(),
            .text("sdEntry") { RecallRender.seconds($0.sdEntrySeconds) }.forOwnTemplates(),
            .int("finalCorrect") { $0.finalCorrect }.forOwnTemplates(),
            .text("toLastKey") { RecallRender.seconds($0.toLastKeyMs) }.forOwnTemplates(),
            .bool("done") { $0.done }.forOwnTemplates(),
        ])
    }

    /// One row of the practice-typing table (Memorize and Verify pages), for a template
    /// of its own.
    struct PracticeRow: TemplateRecord {
        var n: Int, page: String, order: Int, durationMs: Int, correct: Bool, keystrokes: Int, deletions: Int
        var medianHold: Double?, medianDD: Double?, medianUD: Double?, medianUU: Double?

        init(n: Int, entry e: TypedEntry) {
            self.n = n; page = e.page.title; order = e.order; durationMs = e.durationMs; correct = e.correct
            keystrokes = e.keystrokes; deletions = e.deletions
            medianHold = e.dynamics.medianHold; medianDD = e.dynamics.medianDownDown
            medianUD = e.dynamics.medianUpDown; medianUU = e.dynamics.medianUpUp
        }

        static let fields = TemplateFields<Self>([
            .int("n") { $0.n }.forOwnTemplates(),
            .text("page") { $0.page }.forOwnTemplates(),
            .int("order") { $0.order }.forOwnTemplates(),
            .text("duration") { RecallRender.seconds($0.durationMs) }.forOwnTemplates(),
            .bool("correct") { $0.correct }.forOwnTemplates(),
            .int("keystrokes") { $0.keystrokes }.forOwnTemplates(),
            .int("deletions") { $0.deletions }.forOwnTemplates(),
            .text("medianHold") { RecallRender.ms($0.medianHold) }.forOwnTemplates(),
            .text("medianDD") { RecallRender.ms($0.medianDD) }.forOwnTemplates(),
            .text("medianUD") { RecallRender.ms($0.medianUD) }.forOwnTemplates(),
            .text("medianUU") { RecallRender.ms($0.medianUU) }.forOwnTemplates(),
        ])
    }

    /// The Recall part: its time, fields table and the number of strings recalled exactly.
    struct RecallPart: TemplateRecord {
        var total: String
        /// What was typed in each field (``Field``, for a template of its own).
        var typed: [RecallField]
        /// The Recall fields table in its final HTML, when something was typed.
        var fieldsTableHTML: String?
        var recalled: Int

        static let fields = TemplateFields<Self>([
            .text("total") { $0.total },
            .maybeText("fieldsTableHTML") { $0.fieldsTableHTML },
            .list("fields", Field.self) { $0.typed.map(Field.init) }.forOwnTemplates(),
            .bool("hasFields") { !$0.typed.isEmpty },
            .int("recalled") { $0.recalled },
        ])

        /// One Recall field: its number, the text typed, whether it is correct, the string it matches.
        struct Field: TemplateRecord {
            var recallField: RecallField

            static let fields = TemplateFields<Self>([
                .int("field") { $0.recallField.field }.forOwnTemplates(),
                .text("text") { $0.recallField.text }.forOwnTemplates(),
                .bool("correct") { $0.recallField.correct }.forOwnTemplates(),
                .text("matches") { $0.recallField.matches.map { "string \($0)" } ?? "no string" }.forOwnTemplates(),
            ])
        }
    }

    /// A list item with one text (the warnings).
    struct TextItem: TemplateRecord {
        var text: String
        static let fields = TemplateFields<Self>([.text("text") { $0.text }])
    }
}
