// MARK: - The study summary's aggregates, one participant at a time (docs/incremental.md)

/// Everything the study summary (its page, `strings.csv`, the Appendix B table,
/// `summary.md`, the sets' index) needs of the participants, gathered as each record is
/// decoded and then dropped: counts, each string's entry times as packed integers, the
/// Appendix B row and a short row for the page's participant table. Holding every decoded
/// ``ParticipantSummary`` and ``StudyContribution`` instead was 3.6 KB a participant of a
/// clean build's peak (round six). Participants are added in unit order; every statistic
/// is computed from the same values in the same order as the whole-list functions
/// (``StudyTables/strings(_:_:)``, ``StudyTable/table(name:strings:participants:)``), so
/// the bits are the same (`SummaryAggregateTests`).
public struct StudyAggregate: Sendable {
    /// What the summary page's participant table shows of one participant.
    public struct Row: Sendable, Equatable {
        public var slug: String
        public var participant: String
        public var sourceFile: String
        public var complete: Bool
        public var desktop: Bool
        public var sessionTotalMs: Int?
        /// Every entry's time (s): how many, their mean and sample SD.
        public var entryCount: Int
        public var meanEntry: Double?
        public var sdEntry: Double?
        public var recalled: Int
        public var warnings: Int
    }

    /// Per string (index 0 = string 1) of every participant.
    public struct PerString: Sendable, Equatable {
        /// Entry times (ms) of the string's entries, in participant and entry order.
        public var times = PackedTimes()
        public var incorrectEntries = 0, rekeyEntries = 0
        /// Participants with a PerString of this string marked reached, and the sums of
        /// their first such PerString's counts (the summary page's rates).
        public var reached = 0, reachedEntries = 0, reachedIncorrect = 0, reachedRekeys = 0, reachedVerifyFailures = 0
        /// Verify attempts (contributions) and failures (the first PerString of the string).
        public var verifyAttempts = 0, verifyNotOK = 0
        /// Participants who reached the Recall page and recalled the string.
        public var recalled = 0
    }

    public private(set) var rows: [Row] = []
    public private(set) var strings = Array(repeating: PerString(), count: StringSet.count)
    /// Participants who reached the Recall page.
    public private(set) var recallers = 0
    /// The study's own Appendix B table, rows added in order.
    public private(set) var appendixB: CohortTable

    public init(name: String, strings set: StringSet) {
        appendixB = CohortTable(name: name, columns: CohortTable.columns(for: set), complete: [], incomplete: [])
    }

    public var completeCount: Int { appendixB.complete.count }

    /// Adds one participant (in unit order).
    public mutating func add(slug: String, _ s: ParticipantSummary, _ c: StudyContribution, sourceFile: String) {
        let count = StringSet.count
        for e in c.entries where e.string >= 1 && e.string <= count {
            strings[e.string - 1].times.append(e.duration)
            if !e.correct { strings[e.string - 1].incorrectEntries += 1 }
            if e.rekey { strings[e.string - 1].rekeyEntries += 1 }
        }
        for n in 1...count {
            if let r = s.strings.first(where: { $0.n == n && $0.reached }) {
                strings[n - 1].reached += 1
                strings[n - 1].reachedEntries += r.entries
                strings[n - 1].reachedIncorrect += r.incorrectEntries
                strings[n - 1].reachedRekeys += r.rekeys
                strings[n - 1].reachedVerifyFailures += r.verifyFailures
            }
            strings[n - 1].verifyAttempts += c.verifyAttempts[n - 1]
            strings[n - 1].verifyNotOK += s.strings.first { $0.n == n }?.verifyFailures ?? 0
        }
        if s.reachedRecall {
            recallers += 1
            for n in 1...count where s.recalled.contains(n) { strings[n - 1].recalled += 1 }
        }
        let row = StudyTable.row(s, columns: appendixB.columns)
        if s.complete { appendixB.complete.append(row) } else { appendixB.incomplete.append(row) }
        let times = c.entries.map { Double($0.duration) / 1000 }
        rows.append(Row(slug: slug, participant: s.participant, sourceFile: sourceFile, complete: s.complete,
                        desktop: s.source == .desktop, sessionTotalMs: s.sessionTotalMs, entryCount: times.count,
                        meanEntry: StudyStats.mean(times), sdEntry: StudyStats.sd(times),
                        recalled: s.recalled.count, warnings: s.warnings))
    }

    /// `strings.csv`: exactly ``StudyTables/strings(_:_:)`` of the same participants.
    public func stringsTable(_ set: StringSet) -> Table {
        var rows: [[TableCell]] = []
        for n in 1...StringSet.count {
            let s = strings[n - 1]
            let d = s.times.map { Double($0) }
            let sorted = d.sorted()
            let entries = s.times.count
            func rate(_ a: Int, _ b: Int) -> TableCell { b == 0 ? .empty : .number(Double(a) / Double(b)) }
            let iqr = StudyStats.quantile(sorted: sorted, 0.75).flatMap { q3 in
                StudyStats.quantile(sorted: sorted, 0.25).map { q3 - $0 }
            }
            rows.append([.int(n), .text(set[number: n]), .int(set[number: n].count), .int(s.reached),
                .int(entries), .opt(StudyStats.mean(d)), .opt(StudyStats.sd(d)),
                .opt(StudyStats.quantile(sorted: sorted, 0.5)),
                         .opt(iqr),
                .int(s.incorrectEntries), rate(s.incorrectEntries, entries), .int(s.rekeyEntries),
                rate(s.rekeyEntries, entries),
                         .int(s.verifyAttempts), .int(s.verifyNotOK), rate(s.verifyNotOK, s.verifyAttempts),
                         .int(recallers), .int(s.recalled), rate(s.recalled, recallers)])
        }
        return Table(header: StudyTables.stringsHeader, rows: rows)
    }
}

/// Entry times in ms, 4 bytes each while every one fits in 32 bits (a study's are a few
/// seconds), else 8: the order and the values are kept exactly. Kept in chunks of fixed
/// size, so a growing list never holds twice its size as an array's doubling would.
public struct PackedTimes: Sendable, Equatable {
    static let chunkSize = 4096
    private var chunks: [[Int32]] = []
    private var large: [Int]? = nil
    public private(set) var count = 0

    public init() {}

    public mutating func append(_ ms: Int) {
        count += 1
        if large != nil {
            large!.append(ms)
        } else if let v = Int32(exactly: ms) {
            if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
            }
            chunks[chunks.count - 1].append(v)
        } else {
            large = chunks.flatMap { $0.map(Int.init) } + [ms]
            chunks = []
        }
    }

    /// The times in order, through `transform`.
    public func map<T>(_ transform: (Int) -> T) -> [T] {
        if let large { return large.map(transform) }
        var out: [T] = []
        out.reserveCapacity(count)
        for c in chunks { for v in c { out.append(transform(Int(v))) } }
        return out
    }
}
