// MARK: - The study-wide tables (docs/recall-study-data.md)

/// One participant as the study-wide tables see it.
public struct StudyParticipant: Sendable {
    public var summary: ParticipantSummary
    /// The participant's rows (empty when built from stored contributions: the study
    /// summary then takes the rows as bytes, see docs/incremental.md).
    public var detail: ParticipantDetail
    /// What the aggregates need (``StudyContribution``).
    public var contribution: StudyContribution
    /// The log's file name as shown in messages (project-relative): tells apart two logs
    /// with the same participant number.
    public var sourceFile: String
    public init(summary: ParticipantSummary, detail: ParticipantDetail, sourceFile: String) {
        self.summary = summary; self.detail = detail; self.sourceFile = sourceFile
        contribution = StudyContribution(detail)
    }
    public init(summary: ParticipantSummary, contribution: StudyContribution, sourceFile: String) {
        self.summary = summary; self.detail = ParticipantDetail(); self.sourceFile = sourceFile
        self.contribution = contribution
    }
}

public enum StudyTables {
    /// `entries.csv`: one row per individual entry on an Entry page, participants in
    /// unit order, entries in keyed order.
    public static func entries(_ ps: [StudyParticipant]) -> Table {
        var rows: [[TableCell]] = []
        for p in ps {
            for e in p.detail.entries {
                rows.append([
                    .text(p.summary.participant), .text(p.sourceFile), .int(e.string), .int(e.field), .int(e.order),
                    .int(e.start), .int(e.end), .int(e.duration), .int(e.keystrokes), .int(e.backspaces),
                    .bool(e.correct), .bool(e.rekey), .int(e.textLength), .bool(e.oneTap)
                ])
            }
        }
        return Table(
            header: [
                "participant", "source_file", "string", "field", "order", "start_ms", "end_ms", "duration_ms",
                "keystrokes", "backspaces", "correct", "rekey", "final_text_length", "one_tap"
            ],
            rows: rows)
    }

    /// `participants.csv`: one row per participant log.
    public static func participants(_ ps: [StudyParticipant]) -> Table {
        let rows: [[TableCell]] = ps.map { sp in
            let p = sp.summary
            func sum(_ f: (ParticipantSummary.PerString) -> Int) -> TableCell {
                .int(p.strings.reduce(0) { $0 + f($1) })
            }
            return [.text(p.participant), .text(sp.sourceFile), .text(p.source.rawValue), .bool(p.complete),
                    .opt(p.sessionTotalMs), .int(p.lastEventMs), .int(p.warnings),
                    sum(\.entries), sum(\.incorrectEntries), sum(\.rekeys), sum(\.deletions), sum(\.verifyFailures),
                    .int(p.recallFields), recalledCell(p.recalled),
                    .opt(p.medianHold), .opt(p.medianDownDown), .opt(p.medianUpDown), .opt(p.medianUpUp)]
        }
        return Table(
            header: [
                "participant", "source_file", "source", "complete", "session_total_ms", "last_event_ms", "warnings",
                "entries", "incorrect_entries", "rekeys", "deletions", "verify_failures",
                "recall_fields", "strings_recalled", "median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms"
            ],
            rows: rows)
    }

    /// `strings_recalled`: the numbers as a JSON array (`[3, 7]`, `[3]`), so a one-number
    /// list is still text to a CSV reader (pandas would read a column of `3`s as int64);
    /// empty when none was recalled.
    static func recalledCell(_ numbers: [Int]) -> TableCell {
        numbers.isEmpty ? .empty : .text("[" + numbers.map(String.init).joined(separator: ", ") + "]")
    }

    /// `recall.csv`: one row per non-empty Recall field at the page turn.
    public static func recall(_ ps: [StudyParticipant]) -> Table {
        var rows: [[TableCell]] = []
        for p in ps {
            for f in p.detail.recall {
                rows.append([.text(p.summary.participant), .text(p.sourceFile), .int(f.field), .int(f.textLength),
                             .opt(f.matched), .bool(f.matched != nil), .int(f.editDistance), .int(f.nearest),
                             .opt(f.caseInsensitive)])
            }
        }
        return Table(header: ["participant", "source_file", "field", "text_length", "matched_string", "correct",
                              "edit_distance", "nearest_string", "case_insensitive_match"], rows: rows)
    }

    /// `strings.csv`: per string, the entry-time statistics over every Entry entry of
    /// every participant, and the error and recall rates with their counts.
    /// (The whole-list reference of ``StudyAggregate/stringsTable(_:)``, which the summary uses.)
    public static func strings(_ set: StringSet, _ ps: [StudyParticipant]) -> Table {
        // One pass over the participants (not one per string): entries grouped by string
        // in participant and entry order — the order the statistics sum in — and counts.
        let count = StringSet.count
        var entriesOf = Array(repeating: [StudyContribution.EntryTime](), count: count)
        var reached = Array(repeating: 0, count: count), attempts = reached, notOK = reached, recalled = reached
        var recallers = 0
        for p in ps {
            for e in p.contribution.entries where e.string >= 1 && e.string <= count {
                entriesOf[e.string - 1].append(e)
            }
            for n in 1...count {
                if p.summary.strings.contains(where: { $0.n == n && $0.reached }) { reached[n - 1] += 1 }
                attempts[n - 1] += p.contribution.verifyAttempts[n - 1]
                notOK[n - 1] += p.summary.strings.first { $0.n == n }?.verifyFailures ?? 0
            }
            if p.summary.reachedRecall {
                recallers += 1
                for n in 1...count where p.summary.recalled.contains(n) { recalled[n - 1] += 1 }
            }
        }
        var rows: [[TableCell]] = []
        for n in 1...count {
            let es = entriesOf[n - 1]
            let d = es.map { Double($0.duration) }
            let sorted = d.sorted()
            let incorrect = es.count(where: { !$0.correct }), rekeys = es.count(where: \.rekey)
            func rate(_ a: Int, _ b: Int) -> TableCell { b == 0 ? .empty : .number(Double(a) / Double(b)) }
            let iqr = StudyStats.quantile(sorted: sorted, 0.75).flatMap { q3 in
                StudyStats.quantile(sorted: sorted, 0.25).map { q3 - $0 }
            }
            rows.append([.int(n), .text(set[number: n]), .int(set[number: n].count), .int(reached[n - 1]),
                .int(es.count), .opt(StudyStats.mean(d)), .opt(StudyStats.sd(d)),
                .opt(StudyStats.quantile(sorted: sorted, 0.5)),
                         .opt(iqr),
                         .int(incorrect), rate(incorrect, es.count), .int(rekeys), rate(rekeys, es.count),
                         .int(attempts[n - 1]), .int(notOK[n - 1]), rate(notOK[n - 1], attempts[n - 1]),
                         .int(recallers), .int(recalled[n - 1]), rate(recalled[n - 1], recallers)])
        }
        return Table(header: stringsHeader, rows: rows)
    }

    /// The columns of `strings.csv` (also ``StudyAggregate/stringsTable(_:)``).
    public static let stringsHeader = ["string", "target", "length", "participants_reached",
                                       "n_entries", "mean_entry_ms", "sd_entry_ms", "median_entry_ms", "iqr_entry_ms",
                                       "incorrect_entries", "incorrect_rate", "rekeys", "rekey_rate",
                                       "verify_attempts", "verify_not_ok", "verify_not_ok_rate",
                                       "recall_participants", "recalled", "recall_rate"]

    /// Tidy `study-table.csv`: one row per participant, the mean entry time (s, two
    /// decimals as in Appendix B) of each string in columns `s1`…`s10` by string number.
    public static func tidyStudy(_ ps: [StudyParticipant]) -> Table {
        let rows: [[TableCell]] = ps.map { p in
            [.text(p.summary.participant), .text(p.sourceFile), .bool(p.summary.complete)]
                + (1...StringSet.count).map { n in .opt(p.summary.strings.first { $0.n == n }?.meanEntrySeconds) }
        }
        return Table(
            header: ["participant", "source_file", "complete"] + (1...StringSet.count).map { "s\($0)" }, rows: rows)
    }

    /// `study-strings.csv`: the strings of the study table's columns, with the
    /// Appendix B column position (by length, ties by presentation order).
    public static func studyColumns(_ set: StringSet) -> Table {
        let order = CohortTable.columns(for: set).map(\.order)
        let rows: [[TableCell]] = (1...StringSet.count).map { n in
            [
                .text("s\(n)"), .int(n), .text(set[number: n]), .int(set[number: n].count),
                .int(order.firstIndex(of: n)! + 1)
            ]
        }
        return Table(header: ["column", "string", "target", "length", "appendix_b_position"], rows: rows)
    }
}
