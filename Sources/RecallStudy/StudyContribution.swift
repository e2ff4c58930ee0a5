import CompactBinary

// MARK: - What one participant adds to the study-wide statistics (docs/incremental.md)

/// The numbers of one participant that the study summary's aggregates need beyond
/// ``ParticipantSummary``: its entries' durations (in keyed order, for `strings.csv`, the
/// summary page's per-string and per-participant entry times), its Verify attempts, and
/// the key sequences of its keystroke-dynamics timings (which decide each dynamics
/// table's columns). Kept in the build state, a few hundred bytes per participant: the
/// summary recomputes every aggregate from these in unit order, so the result never
/// depends on which participants were rebuilt (no running sums are updated in place).
public struct StudyContribution: Sendable, Hashable {
    /// One Entry-page entry, as much as the aggregates need.
    public struct EntryTime: Sendable, Hashable {
        public var string: Int
        public var duration: Int
        public var correct: Bool
        public var rekey: Bool
    }
    /// A distinct key sequence of the participant's dynamics timings of one string, with
    /// how many timings have it; in the order each sequence first occurs.
    public struct Sequence: Sendable, Hashable {
        public var string: Int
        public var keys: [String]
        public var count: Int
    }
    public var entries: [EntryTime] = []
    /// Verify attempts per string (index 0 = string 1).
    public var verifyAttempts: [Int] = Array(repeating: 0, count: StringSet.count)
    public var sequences: [Sequence] = []

    public init() {}

    public init(_ d: ParticipantDetail) {
        // One-tap entries have no entry time (docs/recall-measures.md, "One-tap entries").
        for e in d.entries where !e.oneTap {
            entries.append(EntryTime(string: e.string, duration: e.duration, correct: e.correct, rekey: e.rekey))
        }
        verifyAttempts = d.verifyAttempts
        sequences = Self.sequences(of: d.timings)
    }

    /// The distinct (string, key sequence) pairs of `timings` in first-seen order, with
    /// their counts: each timing compared with the sequences found so far (a few per
    /// string; the same string first, then the keys, whose arrays are often the same
    /// storage). A dictionary keyed by the key lists hashed every key of every timing
    /// (0.3 % of a study build). The plain twin, that dictionary, is in
    /// `StudyContributionTwinTests`.
    static func sequences(of timings: [ParticipantDetail.Timing]) -> [Sequence] {
        var sequences: [Sequence] = []
        timings.withUnsafeBufferPointer { timings in
            for t in timings.indices {
                let string = timings[t].string
                if let i = sequences.firstIndex(where: { $0.string == string && $0.keys == timings[t].keys }) {
                    sequences[i].count += 1
                } else {
                    sequences.append(Sequence(string: string, keys: timings[t].keys, count: 1))
                }
            }
        }
        return sequences
    }

    // MARK: Compact form (CompactBinary; version byte first)

    public static let compactVersion: UInt8 = 1

    /// Version byte 1; u32 n × (i64 string, i64 duration, bool correct, bool rekey);
    /// u32 n × i64 verify attempts; u32 n × (i64 string, u32 k × string key, i64 count).
    public func compactBytes() -> [UInt8] {
        var w = CompactWriter(capacity: 16 + entries.count * 18 + sequences.count * 64)
        w.u8(Self.compactVersion)
        w.count(entries.count)
        for e in entries { w.int(e.string); w.int(e.duration); w.bool(e.correct); w.bool(e.rekey) }
        w.count(verifyAttempts.count); for v in verifyAttempts { w.int(v) }
        w.count(sequences.count)
        for s in sequences {
            w.int(s.string)
            w.count(s.keys.count); for k in s.keys { w.string(k) }
            w.int(s.count)
        }
        return w.bytes
    }

    /// nil unless `bytes` is exactly one contribution of this version.
    public init?(compactBytes bytes: UnsafeRawBufferPointer) {
        var r = CompactReader(bytes)
        guard r.u8() == Self.compactVersion, let ne = r.count() else { return nil }
        entries.reserveCapacity(ne)
        for _ in 0..<ne {
            guard let s = r.int(), let d = r.int(), let c = r.bool(), let k = r.bool() else { return nil }
            entries.append(EntryTime(string: s, duration: d, correct: c, rekey: k))
        }
        guard let nv = r.count(), nv == StringSet.count else { return nil }
        verifyAttempts = []
        for _ in 0..<nv { guard let v = r.int() else { return nil }; verifyAttempts.append(v) }
        guard let ns = r.count() else { return nil }
        for _ in 0..<ns {
            guard let s = r.int(), let nk = r.count() else { return nil }
            var keys: [String] = []
            for _ in 0..<nk { guard let k = r.string() else { return nil }; keys.append(k) }
            guard let c = r.int() else { return nil }
            sequences.append(Sequence(string: s, keys: keys, count: c))
        }
        guard r.atEnd else { return nil }
    }
}
