import RecallStudy
import Render

// MARK: - The participant page's tables, written in their final form

/// Every table of the participant page is written final (``TableMarkup/finalTableTag``),
/// so the page's table pass only drops the marker (docs/design-system.md, "Tables";
/// docs/perf-study.md, rounds five and six): the model knows its columns. Integer
/// columns are numbers; the seconds and milliseconds columns are padded as the pass pads
/// them (``TableMarkup/NumberColumn``); columns holding text from the log or the string
/// set (targets, recalled text, page names, `(not done)`, `n/10`, `True`/`False`) are read
/// by the pass's own rules (``TableMarkup/TextColumn``). `RecallParticipantModelTests`
/// compares the page after the pass with round five's page (plain tables) after the pass.
extension RecallReport {
    typealias Column = TableMarkup.FinalTable.Column

    /// The Strings table: one row per string reached.
    static func stringsTable(_ reached: [StringResult]) -> String {
        func seconds(_ title: String, _ ms: (StringResult) -> Int?) -> Column {
            .numbers(title, TableMarkup.NumberColumn(reached.map { RecallRender.seconds(ms($0)) }))
        }
        let columns: [Column] = [
            .integers("#", reached.map { $0.number }),
            .text("target", TableMarkup.TextColumn(reached.map { "<code>" + HTML.escape($0.target) + "</code>" })),
            .integers("length", reached.map { $0.length }),
            .integers("Memorize views", reached.map { $0.memorizeViews.count }),
            seconds("Memorize (s)") { $0.memorizeTotalMs },
            .integers("Verify views", reached.map { $0.verifyViews.count }),
            .integers("Verify Not OK", reached.map { $0.verifyFailures }),
            seconds("Verify (s)") { $0.verifyTotalMs },
            .integers("entries", reached.map { $0.entries.count }),
            .integers("incorrect", reached.map { $0.incorrectEntries }),
            .integers("re-keys", reached.map { $0.rekeys }),
            .integers("backspaces", reached.map { $0.deletions }),
            .text("Entry page (s)", TableMarkup.TextColumn(reached.map {
                RecallRender.seconds($0.entryTotalMs) + ($0.completed ? "" : " (not done)")
            })),
            .numbers(
                "mean entry (s; n = entries)",
                TableMarkup.NumberColumn(reached.map { RecallRender.seconds($0.meanEntrySeconds) })),
            .numbers("SD (s)", TableMarkup.NumberColumn(reached.map {
                RecallRender.seconds(StudyStats.sd($0.entries.map { Double($0.durationMs) / 1000 }))
            })),
            .text("correct at Done", TableMarkup.TextColumn(reached.map { "\($0.finalCorrect)/10" })),
            seconds("Memorize → last entry key (s)") { $0.memorizeToLastEntryKeyMs },
        ]
        return TableMarkup.FinalTable.html(columns, rows: reached.count, layout: .init(
            beforeHeader: "\n  <thead><tr>", afterHeader: "</tr></thead>\n  <tbody>\n",
            rowOpen: "  <tr>", rowClose: "</tr>\n", afterRows: "  </tbody>\n</table>"))
    }

    /// The practice-typing table (Memorize and Verify pages): one row per practice entry.
    static func practiceTable(_ reached: [StringResult]) -> String {
        let rows = reached.flatMap { s in s.practice.map { (s.number, $0) } }
        func ms(_ title: String, _ value: (TypedEntry) -> Double?) -> Column {
            .numbers(title, TableMarkup.NumberColumn(rows.map { RecallRender.ms(value($0.1)) }))
        }
        let columns: [Column] = [
            .integers("string", rows.map { $0.0 }),
            .text("page", TableMarkup.TextColumn(rows.map { HTML.escape($0.1.page.title) })),
            .integers("order", rows.map { $0.1.order }),
            .numbers("time (s)", TableMarkup.NumberColumn(rows.map { RecallRender.seconds($0.1.durationMs) })),
            .text("correct", TableMarkup.TextColumn(rows.map { $0.1.correct ? "True" : "False" })),
            .integers("keystrokes", rows.map { $0.1.keystrokes }),
            .integers("backspaces", rows.map { $0.1.deletions }),
            ms("median hold (ms)") { $0.dynamics.medianHold },
            ms("median down-down (ms)") { $0.dynamics.medianDownDown },
            ms("median up-down (ms)") { $0.dynamics.medianUpDown },
            ms("median up-up (ms)") { $0.dynamics.medianUpUp },
        ]
        return TableMarkup.FinalTable.html(columns, rows: rows.count, layout: compact)
    }

    /// The Recall fields table: what was typed in each field and which string it matches.
    static func fieldsTable(_ fields: [RecallField]) -> String {
        let columns: [Column] = [
            .integers("field", fields.map { $0.field }),
            .text("text", TableMarkup.TextColumn(fields.map { "<code>" + HTML.escape($0.text) + "</code>" })),
            .text("typed correctly", TableMarkup.TextColumn(fields.map { $0.correct ? "True" : "False" })),
            .text("matches", TableMarkup.TextColumn(fields.map { $0.matches.map { "string \($0)" } ?? "no string" })),
        ]
        return TableMarkup.FinalTable.html(columns, rows: fields.count, layout: compact)
    }

    /// The practice and Recall tables' layout: rows on one line.
    static let compact = TableMarkup.FinalTable.Layout(
        beforeHeader: "\n  <thead><tr>", afterHeader: "</tr></thead>\n  <tbody>",
        rowOpen: "<tr>", rowClose: "</tr>", afterRows: "</tbody>\n</table>")

    /// One string's individual-entries table: the time and median columns padded by
    /// ``TableMarkup/NumberColumn``, `correct` reads yes/no and a re-key column without a
    /// re-key is hidden (a table without rows gets no cell classes). Every value is a
    /// number or a fixed word: nothing from the log is inserted unescaped.
    static func entryTable(_ entries: [TypedEntry]) -> String {
        let rekey = entries.isEmpty || entries.contains { $0.rekey } ? "" : " class=\"col-empty\""
        // The columns in one pass over the entries, each read in place (a `map` per column
        // copied every entry, its arrays retained and released, for two of them).
        func room<T>(_: T.Type) -> [T] {
            var a: [T] = []
            a.reserveCapacity(entries.count)
            return a
        }
        var order = room(Int.self), field = room(Int.self), keys = room(Int.self), deletions = room(Int.self)
        var time = room(String.self), correct = room(String.self), rekeyed = room(String.self)
        var hold = room(String.self), downDown = room(String.self)
        for i in entries.indices {
            order.append(entries[i].order); field.append(entries[i].field)
            time.append(RecallRender.seconds(ms: entries[i].durationMs))
            correct.append(entries[i].correct ? "yes" : "no"); rekeyed.append(entries[i].rekey ? "yes" : "")
            keys.append(entries[i].keystrokes); deletions.append(entries[i].deletions)
            hold.append(RecallRender.ms(entries[i].dynamics.medianHold))
            downDown.append(RecallRender.ms(entries[i].dynamics.medianDownDown))
        }
        let columns: [Column] = [
            .integers("order", order),
            .integers("field", field),
            .numbers("time (s)", TableMarkup.NumberColumn(time)),
            Column("correct", classAttribute: "", cells: .html(correct)),
            Column("re-key", classAttribute: rekey, cells: .html(rekeyed)),
            .integers("keystrokes", keys),
            .integers("backspaces", deletions),
            .numbers("median hold (ms)", TableMarkup.NumberColumn(hold)),
            .numbers("median down-down (ms)", TableMarkup.NumberColumn(downDown))
        ]
        return TableMarkup.FinalTable.html(columns, rows: entries.count, layout: .init(
            beforeHeader: "\n    <thead><tr>", afterHeader: "</tr></thead>\n    <tbody>\n",
            rowOpen: "<tr>", rowClose: "</tr>\n", afterRows: "</tbody>\n  </table>"))
    }
}
