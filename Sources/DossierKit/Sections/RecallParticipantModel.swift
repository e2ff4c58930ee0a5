import Foundation
import RecallStudy
import Render

// MARK: - The participant page's typed model (Templates/recall/participant.mustache)

/// What `recall/participant` shows, one field per name the template uses (DESIGN.md:
/// typed page models). Handed to Dossier's Mustache renderer without a `[String: Any]`
/// dictionary per page and row, whose every look-up cast its value (docs/perf-study.md,
/// "Round five"). `RecallParticipantModelTests` renders the template with this model and
/// with the dictionary it replaced.
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
    var strings: [StringRow]
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
        case "reachedCount": .text(String(reachedCount))
        case "medianHold": .text(medianHold)
        case "medianDD": .text(medianDD)
        case "medianUD": .text(medianUD)
        case "medianUU": .text(medianUU)
        case "warnings": .list(warnings.map { .object(TextItem(text: $0)) })
        case "hasWarnings": .bool(!warnings.isEmpty)
        case "strings": .list(of: strings)
        case "practice": .list(of: practice)
        case "hasPractice": .bool(!practice.isEmpty)
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

    /// One row of the Strings table (and one `<details>` of individual entries).
    struct StringRow: TemplateModel {
        var n: Int, target: String, length: Int
        var memorizeViews: Int, memorizeTotal: String
        var verifyViews: Int, verifyFailures: Int, verifyTotal: String
        var entries: Int, incorrect: Int, rekeys: Int, deletions: Int
        var entryTotal: String, meanEntry: String, sdEntry: String
        var finalCorrect: Int, toLastKey: String, done: Bool
        /// The individual-entries table, already in its final HTML (``RecallReport/entryTable(_:)``).
        var entryTableHTML: String

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "n": .text(String(n))
            case "target": .text(target)
            case "length": .text(String(length))
            case "memorizeViews": .text(String(memorizeViews))
            case "memorizeTotal": .text(memorizeTotal)
            case "verifyViews": .text(String(verifyViews))
            case "verifyFailures": .text(String(verifyFailures))
            case "verifyTotal": .text(verifyTotal)
            case "entries": .text(String(entries))
            case "incorrect": .text(String(incorrect))
            case "rekeys": .text(String(rekeys))
            case "deletions": .text(String(deletions))
            case "entryTotal": .text(entryTotal)
            case "meanEntry": .text(meanEntry)
            case "sdEntry": .text(sdEntry)
            case "finalCorrect": .text(String(finalCorrect))
            case "toLastKey": .text(toLastKey)
            case "done": .bool(done)
            case "entryTableHTML": .text(entryTableHTML)
            default: nil
            }
        }
    }

    /// One row of the practice-typing table (Memorize and Verify pages).
    struct PracticeRow: TemplateModel {
        var n: Int, page: String, order: Int, duration: String, correct: Bool
        var keystrokes: Int, deletions: Int
        var medianHold: String, medianDD: String, medianUD: String, medianUU: String

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "n": .text(String(n))
            case "page": .text(page)
            case "order": .text(String(order))
            case "duration": .text(duration)
            case "correct": .bool(correct)
            case "keystrokes": .text(String(keystrokes))
            case "deletions": .text(String(deletions))
            case "medianHold": .text(medianHold)
            case "medianDD": .text(medianDD)
            case "medianUD": .text(medianUD)
            case "medianUU": .text(medianUU)
            default: nil
            }
        }
    }

    /// The Recall part: its time, fields and the number of strings recalled exactly.
    struct RecallPart: TemplateModel {
        var total: String
        var fields: [Field]
        var recalled: Int

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "total": .text(total)
            case "fields": .list(of: fields)
            case "hasFields": .bool(!fields.isEmpty)
            case "recalled": .text(String(recalled))
            default: nil
            }
        }

        struct Field: TemplateModel {
            var field: Int, text: String, correct: Bool, matches: String

            func value(_ name: String) -> TemplateValue? {
                switch name {
                case "field": .text(String(field))
                case "text": .text(text)
                case "correct": .bool(correct)
                case "matches": .text(matches)
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
