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
    var reachedCount: Int
    var medianHold: String, medianDD: String, medianUD: String, medianUU: String
    var warnings: [String]
    /// The strings reached, for the individual-entries part.
    var strings: [StringRow]
    /// The Strings table, in its final HTML (``RecallReport/stringsTable(_:)``).
    var stringsTableHTML: String
    /// The practice-typing table, when a string has a practice entry.
    var practiceTableHTML: String?
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
        case "practice": .list(of: strings.flatMap { s in s.result.practice.map { PracticeRow(n: s.result.number, entry: $0) } })
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
    /// its own, one row of the Strings table).
    struct StringRow: TemplateModel {
        var result: StringResult
        /// The individual-entries table, already in its final HTML (``RecallReport/entryTable(_:)``).
        var entryTableHTML: String

        func value(_ name: String) -> TemplateValue? {
            let s = result
            return switch name {
            case "n": .text(String(s.number))
            case "target": .text(s.target)
            case "entries": .text(String(s.entries.count))
            case "entryTableHTML": .text(entryTableHTML)
            case "length": .text(String(s.length))
            case "memorizeViews": .text(String(s.memorizeViews.count))
            case "memorizeTotal": .text(RecallRender.seconds(s.memorizeTotalMs))
            case "verifyViews": .text(String(s.verifyViews.count))
            case "verifyFailures": .text(String(s.verifyFailures))
            case "verifyTotal": .text(RecallRender.seconds(s.verifyTotalMs))
            case "incorrect": .text(String(s.incorrectEntries))
            case "rekeys": .text(String(s.rekeys))
            case "deletions": .text(String(s.deletions))
            case "entryTotal": .text(RecallRender.seconds(s.entryTotalMs))
            case "meanEntry": .text(RecallRender.seconds(s.meanEntrySeconds))
            case "sdEntry": .text(RecallRender.seconds(StudyStats.sd(s.entries.map { Double($0.durationMs) / 1000 })))
            case "finalCorrect": .text(String(s.finalCorrect))
            case "toLastKey": .text(RecallRender.seconds(s.memorizeToLastEntryKeyMs))
            case "done": .bool(s.completed)
            default: nil
            }
        }
    }

    /// One row of the practice-typing table (Memorize and Verify pages), for a template
    /// of its own.
    struct PracticeRow: TemplateModel {
        var n: Int, entry: TypedEntry

        func value(_ name: String) -> TemplateValue? {
            let e = entry
            return switch name {
            case "n": .text(String(n))
            case "page": .text(e.page.title)
            case "order": .text(String(e.order))
            case "duration": .text(RecallRender.seconds(e.durationMs))
            case "correct": .bool(e.correct)
            case "keystrokes": .text(String(e.keystrokes))
            case "deletions": .text(String(e.deletions))
            case "medianHold": .text(RecallRender.ms(e.dynamics.medianHold))
            case "medianDD": .text(RecallRender.ms(e.dynamics.medianDownDown))
            case "medianUD": .text(RecallRender.ms(e.dynamics.medianUpDown))
            case "medianUU": .text(RecallRender.ms(e.dynamics.medianUpUp))
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
