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

    /// One string reached: one `<details>` of individual entries.
    struct StringRow: TemplateModel {
        var n: Int, target: String, entries: Int
        /// The individual-entries table, already in its final HTML (``RecallReport/entryTable(_:)``).
        var entryTableHTML: String

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "n": .text(String(n))
            case "target": .text(target)
            case "entries": .text(String(entries))
            case "entryTableHTML": .text(entryTableHTML)
            default: nil
            }
        }
    }

    /// The Recall part: its time, fields table and the number of strings recalled exactly.
    struct RecallPart: TemplateModel {
        var total: String
        /// The Recall fields table in its final HTML, when something was typed.
        var fieldsTableHTML: String?
        var recalled: Int

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "total": .text(total)
            case "fieldsTableHTML": fieldsTableHTML.map { .text($0) }
            case "hasFields": .bool(fieldsTableHTML != nil)
            case "recalled": .text(String(recalled))
            default: nil
            }
        }
    }

    /// A list item with one text (the warnings).
    struct TextItem: TemplateModel {
        var text: String
        func value(_ name: String) -> TemplateValue? { name == "text" ? .text(text) : nil }
    }
}
