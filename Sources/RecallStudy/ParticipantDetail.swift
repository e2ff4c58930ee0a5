import CompactBinary

// MARK: - What one participant adds to the study-wide tables (docs/recall-study-data.md)

/// The rows one participant contributes to `entries.csv`, `recall.csv` and the
/// keystroke-dynamics tables: kept beside ``ParticipantSummary`` in the build state so the
/// study summary never re-reads a log.
public struct ParticipantDetail: Sendable, Hashable {
    /// One individual entry on an Entry page.
    public struct Entry: Sendable, Hashable {
        public var string, field, order, start, end, duration, keystrokes, backspaces: Int
        public var correct: Bool
        public var textLength: Int
        public var rekey: Bool
        /// A one-tap entry (docs/recall-measures.md): in `entries.csv`, out of the entry times.
        public var oneTap = false
    }
    /// One non-empty Recall field at the page turn.
    public struct Recall: Sendable, Hashable {
        public var field, textLength: Int
        /// The string the text equals exactly (first of equal strings), if any.
        public var matched: Int?
        /// Levenshtein distance (in characters) to the nearest string, and that string.
        public var editDistance, nearest: Int
        /// The first string the text equals ignoring case, if any.
        public var caseInsensitive: Int?
    }
    /// The CMU-style timings of one correct Entry entry typed without deletions.
    public struct Timing: Sendable, Hashable {
        public var string, order: Int
        public var keys: [String]
        /// Per key (empty when the entry has taps only).
        public var hold: [Int]
        /// Per consecutive pair; `upDown` empty when the entry has taps only.
        public var downDown, upDown: [Int]
    }
    public var entries: [Entry] = []
    public var recall: [Recall] = []
    public var timings: [Timing] = []
    /// Verify attempts per string (index 0 = string 1).
    public var verifyAttempts: [Int] = Array(repeating: 0, count: StringSet.count)

    public init() {}

    public init(_ r: ParticipantResult, strings: StringSet) {
        // Each string and entry read where it lies: `for s in r.strings` and `for e in
        // s.entries` copied every one, retaining every text and list inside it.
        r.strings.withUnsafeBufferPointer { results in
            for s in results.indices {
                verifyAttempts[results[s].number - 1] = results[s].verifyAttempts.count
                results[s].entries.withUnsafeBufferPointer { entries in
                    for e in entries.indices { add(entries[e], string: results[s].number) }
                }
            }
        }
        for f in r.recall?.fields ?? [] {
            let (dist, nearest) = StudyStats.nearest(f.text, in: strings.strings)
            let lower = f.text.lowercased()
            recall.append(
                Recall(
                    field: f.field, textLength: f.text.count, matched: f.matches, editDistance: dist,
                    nearest: nearest,
                    caseInsensitive: strings.strings.firstIndex { $0.lowercased() == lower }.map { $0 + 1 }))
        }
    }

    /// One Entry-page entry of string `number`: its row, and its timings when it has them.
    private mutating func add(_ e: borrowing TypedEntry, string number: Int) {
        entries.append(Entry(string: number, field: e.field, order: e.order, start: e.start, end: e.end,
                             duration: e.durationMs, keystrokes: e.keystrokes, backspaces: e.deletions,
                             correct: e.correct, textLength: e.text.count, rekey: e.rekey, oneTap: e.oneTap))
        let released = e.dynamics.hold.count == e.dynamics.keys.count
            && e.dynamics.upDown.count == e.dynamics.downDown.count
        let tapped = e.dynamics.hold.isEmpty && e.dynamics.upDown.isEmpty
        if e.correct, e.deletions == 0, !e.oneTap, !e.dynamics.keys.isEmpty, released || tapped {
            timings.append(Timing(string: number, order: e.order, keys: e.dynamics.keys, hold: e.dynamics.hold,
                                  downDown: e.dynamics.downDown, upDown: e.dynamics.upDown))
        }
    }

    // MARK: Compact form (CompactBinary; version byte first)

    public static let compactVersion: UInt8 = 2

    public func compactBytes() -> [UInt8] {
        var w = CompactWriter(capacity: 64 + entries.count * 90)
        w.u8(Self.compactVersion)
        w.count(verifyAttempts.count); for v in verifyAttempts { w.int(v) }
        w.count(entries.count)
        for e in entries {
            for v in [e.string, e.field, e.order, e.start, e.end, e.duration, e.keystrokes, e.backspaces, e.textLength]
            { w.int(v) }
            w.bool(e.correct); w.bool(e.rekey); w.bool(e.oneTap)
        }
        w.count(recall.count)
        for f in recall {
            w.int(f.field); w.int(f.textLength); w.int(f.matched); w.int(f.editDistance); w.int(f.nearest);
            w.int(f.caseInsensitive)
        }
        w.count(timings.count)
        for t in timings {
            w.int(t.string); w.int(t.order)
            w.count(t.keys.count); for k in t.keys { w.string(k) }
            for list in [t.hold, t.downDown, t.upDown] { w.count(list.count); for v in list { w.int(v) } }
        }
        return w.bytes
    }

    /// nil unless `bytes` is exactly one detail of this version.
    public init?(compactBytes bytes: UnsafeRawBufferPointer) {
        var r = CompactReader(bytes)
        guard r.u8() == Self.compactVersion, let nv = r.count() else { return nil }
        verifyAttempts = []
        for _ in 0..<nv { guard let v = r.int() else { return nil }; verifyAttempts.append(v) }
        guard let ne = r.count() else { return nil }
        for _ in 0..<ne {
            var v: [Int] = []
            for _ in 0..<9 { guard let x = r.int() else { return nil }; v.append(x) }
            guard let c = r.bool(), let k = r.bool(), let one = r.bool() else { return nil }
            entries.append(
                Entry(
                    string: v[0], field: v[1], order: v[2], start: v[3], end: v[4], duration: v[5],
                    keystrokes: v[6], backspaces: v[7], correct: c, textLength: v[8], rekey: k, oneTap: one))
        }
        guard let nr = r.count() else { return nil }
        for _ in 0..<nr {
            guard let f = r.int(), let l = r.int(), let m = r.optionalInt(), let d = r.int(), let n = r.int(),
                  let ci = r.optionalInt() else { return nil }
            recall.append(Recall(field: f, textLength: l, matched: m, editDistance: d, nearest: n, caseInsensitive: ci))
        }
        guard let nt = r.count() else { return nil }
        for _ in 0..<nt {
            guard let s = r.int(), let o = r.int(), let nk = r.count() else { return nil }
            var keys: [String] = []
            for _ in 0..<nk { guard let k = r.string() else { return nil }; keys.append(k) }
            var lists: [[Int]] = []
            for _ in 0..<3 {
                guard let n = r.count() else { return nil }
                var l: [Int] = []
                for _ in 0..<n { guard let v = r.int() else { return nil }; l.append(v) }
                lists.append(l)
            }
            timings.append(
                Timing(string: s, order: o, keys: keys, hold: lists[0], downDown: lists[1], upDown: lists[2]))
        }
        guard r.atEnd else { return nil }
    }
}
