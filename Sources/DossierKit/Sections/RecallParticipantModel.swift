import Foundation
import RecallStudy
import Render

// MARK: - The participant page's typed model (Templates/recall/participant.mustache)

/// What `recall/participant` shows, one field per name the template uses (DESIGN.md:
/// typed page models). Handed to Dossier's Mustache renderer without a `[String: Any]`
/// dictionary per page and row, whose every look-up cast its value (docs/perf-study.md,
/// "Round five"). The tables are written final (``RecallReport/stringsTable(_:)`` and its
/// siblings); the row fields round five's template used (`strings[].memorizeTotal`,
/// `practice[]`, `recall.fields[]`, …) are still there for a project's own
/// `templates/recall/participant.mustache`, made only when a template asks for them.
/// `RecallParticipantModelTests` renders round five's template with this model and with
/// the dictionary it replaced, and today's against round five's after the table pass.
struct ParticipantPageModel: TemplateModel {
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

    func value(_ name: String) -> TemplateValue? {
        switch name {
        case "participant": .text(participant)
        case "slug": .text(slug)
        case "source": .text(source)
        case "device": .text(device ?? "")
        case "hasDevice": .bool(device != nil)
        case "complete": .bool(complete)
        case "status": .text(status)
        case "sessionTotal": .text(sessionTotal)
        case "sessionSpan": .text(sessionSpan)
        case "medians": .text(medians)
        case "reachedCount": .text(String(reachedCount))
        case "medianHold": .text(medianHold)
        case "medianDD": .text(medianDD)
        case "medianUD": .text(medianUD)
        case "medianUU": .text(medianUU)
        case "warnings": .list(warnings.map { .object(TextItem(text: $0)) })
        case "hasWarnings": .bool(!warnings.isEmpty)
        case "strings": .list(of: strings)
        case "stringsTableHTML": .text(stringsTableHTML)
        case "hasPractice": .bool(practiceTableHTML != nil)
        case "practiceTableHTML": practiceTableHTML.map { .text($0) }
        case "practice": .list(of: practice)
        case "hasRecall": .bool(recall != nil)
        case "recall": recall.map { .object($0) }
        case "timelineSVG": .text(timelineSVG)
        case "hasEntries": .bool(entrySVG != nil)
        case "entrySVG": entrySVG.map { .text($0) }
        case "errorsSVG": errorsSVG.map { .text($0) }
        case "hasDynamics": .bool(dynamicsSVG != nil)
        case "dynamicsSVG": dynamicsSVG.map { .text($0) }
        default: nil
        }
    }

    /// One string reached: one `<details>` of individual entries (and, for a template of
    /// its own, one row of the Strings table). Numbers only, formatted when asked for: the
    /// row keeps no entry of the string alive until the page is written.
    struct StringRow: TemplateModel {
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

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "n": .text(String(n))
            case "target": .text(target)
            case "entries": .text(String(entries))
            case "entryTableHTML": .text(entryTableHTML)
            case "length": .text(String(length))
            case "memorizeViews": .text(String(memorizeViews))
            case "memorizeTotal": .text(RecallRender.seconds(memorizeTotalMs))
            case "verifyViews": .text(String(verifyViews))
            case "verifyFailures": .text(String(verifyFailures))
            case "verifyTotal": .text(RecallRender.seconds(verifyTotalMs))
            case "incorrect": .text(String(incorrect))
            case "rekeys": .text(String(rekeys))
            case "deletions": .text(String(deletions))
            case "entryTotal": .text(RecallRender.seconds(entryTotalMs))
            case "meanEntry": .text(RecallRender.seconds(meanEntrySeconds))
            case "sdEntry": .text(RecallRender.seconds(sdEntrySeconds))
            case "finalCorrect": .text(String(finalCorrect))
            case "toLastKey": .text(RecallRender.seconds(toLastKeyMs))
            case "done": .bool(done)
            default: nil
            }
        }
    }

    /// One row of the practice-typing table (Memorize and Verify pages), for a template
    /// of its own.
    struct PracticeRow: TemplateModel {
        var n: Int, page: String, order: Int, durationMs: Int, correct: Bool, keystrokes: Int, deletions: Int
        var medianHold: Double?, medianDD: Double?, medianUD: Double?, medianUU: Double?

        init(n: Int, entry e: TypedEntry) {
            self.n = n; page = e.page.title; order = e.order; durationMs = e.durationMs; correct = e.correct
            keystrokes = e.keystrokes; deletions = e.deletions
            medianHold = e.dynamics.medianHold; medianDD = e.dynamics.medianDownDown
            medianUD = e.dynamics.medianUpDown; medianUU = e.dynamics.medianUpUp
        }

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "n": .text(String(n))
            case "page": .text(page)
            case "order": .text(String(order))
            case "duration": .text(RecallRender.seconds(durationMs))
            case "correct": .bool(correct)
            case "keystrokes": .text(String(keystrokes))
            case "deletions": .text(String(deletions))
            case "medianHold": .text(RecallRender.ms(medianHold))
            case "medianDD": .text(RecallRender.ms(medianDD))
            case "medianUD": .text(RecallRender.ms(medianUD))
            case "medianUU": .text(RecallRender.ms(medianUU))
            default: nil
            }
        }
    }

    /// The Recall part: its time, fields table and the number of strings recalled exactly.
    struct RecallPart: TemplateModel {
        var total: String
        /// What was typed in each field (``Field``, for a template of its own).
        var fields: [RecallField]
        /// The Recall fields table in its final HTML, when something was typed.
        var fieldsTableHTML: String?
        var recalled: Int

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "total": .text(total)
            case "fieldsTableHTML": fieldsTableHTML.map { .text($0) }
            case "fields": .list(of: fields.map(Field.init))
            case "hasFields": .bool(!fields.isEmpty)
            case "recalled": .text(String(recalled))
            default: nil
            }
        }

        /// One Recall field: its number, the text typed, whether it is correct, the string it matches.
        struct Field: TemplateModel {
            var f: RecallField

            func value(_ name: String) -> TemplateValue? {
                switch name {
                case "field": .text(String(f.field))
                case "text": .text(f.text)
                case "correct": .bool(f.correct)
                case "matches": .text(f.matches.map { "string \($0)" } ?? "no string")
                default: nil
                }
            }
        }
    }

    /// A list item with one text (the warnings).
    struct TextItem: TemplateModel {
        var text: String
        func value(_ name: String) -> TemplateValue? { name == "text" ? .text(text) : nil }
    }
}
