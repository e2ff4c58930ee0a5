#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - The measures of one participant (docs/recall-measures.md)

/// One view of a Memorize or Verify page.
public struct PageView: Sendable, Hashable, Codable {
    /// 1-based view number for this string and page.
    public var view: Int
    /// Display time (ms since Begin).
    public var start: Int
    /// When the page was left (the next page's display, or the last event if abandoned).
    public var end: Int
    /// `end - start`: the view's time.
    public var durationMs: Int
    /// Display → the last keystroke on this view (`nil` when nothing was typed).
    public var toLastKeyMs: Int?
    /// The field's text when the page was left.
    public var textAtTurn: String
}

/// One Verify button press.
public struct VerifyAttempt: Sendable, Hashable, Codable {
    public var t: Int
    /// The field's text when Verify was pressed.
    public var text: String
    /// Exact match with the target (spaces count).
    public var correct: Bool
    /// What the app displayed (`nil` when the log does not say).
    public var appResult: Bool?
}

/// Keystroke dynamics of one entry, as in the CMU benchmark (milliseconds).
public struct Dynamics: Sendable, Hashable, Codable {
    /// The key tokens in down order (labels as logged).
    public var keys: [String]
    /// Hold: up − down of each key with both.
    public var hold: [Int]
    /// Down-down between consecutive keys.
    public var downDown: [Int]
    /// Up-down between consecutive keys (negative when they overlap).
    public var upDown: [Int]
    /// Up-up between consecutive keys.
    public var upUp: [Int]
    public var medianHold: Double?
    public var medianDownDown: Double?
    public var medianUpDown: Double?
    public var medianUpUp: Double?

    // participant.json keeps the medians and counts, not every latency or key label
    // (raw.csv has the events they come from): this keeps the file small for large studies.
    private struct Kept: Codable {
        var medianHold, medianDownDown, medianUpDown, medianUpUp: Double?
        var holdCount, pairCount: Int?
    }
    public init(keys: [String], hold: [Int], downDown: [Int], upDown: [Int], upUp: [Int],
                medianHold: Double?, medianDownDown: Double?, medianUpDown: Double?, medianUpUp: Double?) {
        self.keys = keys; self.hold = hold; self.downDown = downDown; self.upDown = upDown; self.upUp = upUp
        self.medianHold = medianHold; self.medianDownDown = medianDownDown
        self.medianUpDown = medianUpDown; self.medianUpUp = medianUpUp
    }
    public init(from d: Decoder) throws {
        let k = try Kept(from: d)
        self.init(keys: [], hold: [], downDown: [], upDown: [], upUp: [], medianHold: k.medianHold,
                  medianDownDown: k.medianDownDown, medianUpDown: k.medianUpDown, medianUpUp: k.medianUpUp)
    }
    public func encode(to e: Encoder) throws {
        try Kept(medianHold: medianHold, medianDownDown: medianDownDown, medianUpDown: medianUpDown,
                 medianUpUp: medianUpUp, holdCount: hold.count, pairCount: downDown.count).encode(to: e)
    }
}

/// One individual entry: a run of keystrokes in one field (seed 4c.2 "individual entry").
public struct TypedEntry: Sendable, Hashable, Codable {
    public var page: PageKind
    /// 1–10 (always 1 on Memorize and Verify).
    public var field: Int
    /// 1-based order of the entry among the entries of the same page (string) — re-keys included.
    public var order: Int
    /// First and last keystroke (ms since Begin) and their difference.
    public var start: Int
    public var end: Int
    public var durationMs: Int
    /// The field's text at the end of the entry.
    public var text: String
    /// `text` equals the target exactly (Recall: equals any string).
    public var correct: Bool
    /// The field already had an entry on this page.
    public var rekey: Bool
    /// Key presses (down or tap events).
    public var keystrokes: Int
    /// Key events whose text change removed characters.
    public var deletions: Int
    public var dynamics: Dynamics
    /// One key press added two or more characters (a paste, a drop, dictation): a one-tap
    /// entry, left out of `meanEntrySeconds` (docs/recall-measures.md, "One-tap entries").
    public var oneTap = false
}

/// All measures of one of the ten strings.
public struct StringResult: Sendable, Hashable, Codable {
    public var number: Int
    public var target: String
    public var length: Int
    /// The participant reached this string's Memorize page.
    public var reached: Bool
    /// Done was pressed on the Entry page.
    public var completed: Bool
    public var memorizeViews: [PageView]
    public var memorizeTotalMs: Int
    public var verifyViews: [PageView]
    public var verifyTotalMs: Int
    public var verifyAttempts: [VerifyAttempt]
    /// Attempts the core judged wrong (Not OK).
    public var verifyFailures: Int
    /// Typing on the Memorize and Verify pages (practice), with dynamics.
    public var practice: [TypedEntry]
    /// Entry page: display, Done, and Done − display.
    public var entryStart: Int?
    public var entryDone: Int?
    public var entryTotalMs: Int?
    /// Every individual entry on the Entry page, in the order keyed.
    public var entries: [TypedEntry]
    /// The ten fields when the Entry page was left.
    public var finalEntries: [String]
    /// How many of `finalEntries` equal the target.
    public var finalCorrect: Int
    /// Entries whose text did not equal the target.
    public var incorrectEntries: Int
    public var rekeys: Int
    public var deletions: Int
    /// First Memorize display → last keystroke on the Entry page.
    public var memorizeToLastEntryKeyMs: Int?
    /// Mean `durationMs` of `entries` that are not one-tap, in seconds (the Appendix B
    /// statistic); nil when every entry is one-tap.
    public var meanEntrySeconds: Double?
    /// Entries left out of `meanEntrySeconds` as one-tap entries.
    public var oneTapEntries = 0
    /// Medians over all keystroke pairs of all `entries`.
    public var medianHold: Double?
    public var medianDownDown: Double?
    public var medianUpDown: Double?
    public var medianUpUp: Double?
}

/// One Recall field.
public struct RecallField: Sendable, Hashable, Codable {
    public var field: Int
    public var text: String
    /// The string number it equals exactly, if any.
    public var matches: Int?
    public var correct: Bool { matches != nil }

    public init(field: Int, text: String, matches: Int?) {
        self.field = field
        self.text = text
        self.matches = matches
    }
    /// The field as coded: `correct` is written for readers and ignored when read.
    private struct Coded: Codable {
        var field: Int
        var text: String
        var matches: Int?
        var correct: Bool?
    }
    public init(from d: Decoder) throws {
        let c = try Coded(from: d)
        self.init(field: c.field, text: c.text, matches: c.matches)
    }
    public func encode(to e: Encoder) throws {
        try Coded(field: field, text: text, matches: matches, correct: correct).encode(to: e)
    }
}

/// The Recall page.
public struct RecallResult: Sendable, Hashable, Codable {
    public var start: Int
    /// When the page was left (or the last event if abandoned).
    public var end: Int
    public var lastKey: Int?
    /// Display → last keystroke on the page (`nil` when nothing was typed).
    public var totalMs: Int?
    /// The non-empty fields when the page was left.
    public var fields: [RecallField]
    /// Distinct strings recalled exactly.
    public var stringsRecalled: [Int]
    public var entries: [TypedEntry]
}

/// The fields' contents at one page turn (raw.csv column J).
public struct PageTurn: Sendable, Hashable, Codable {
    public var t: Int
    public var page: PageKind
    public var string: Int?
    public var fields: [String]
}

/// Everything computed for one participant.
public struct ParticipantResult: Sendable, Hashable, Codable {
    public var participant: String
    public var source: SessionSource
    public var device: String?
    /// The Thank You page was displayed.
    public var complete: Bool
    /// Time of the last event (ms since Begin).
    public var lastEventMs: Int
    public var strings: [StringResult]
    public var recall: RecallResult?
    /// First Memorize display.
    public var sessionStart: Int?
    /// Last Recall keystroke; leaving Recall if nothing typed; the last event if abandoned.
    public var sessionEnd: Int?
    public var sessionTotalMs: Int?
    public var pageTurns: [PageTurn]
    public var warnings: [RecallWarning]
    /// Medians over all Entry-page keystroke pairs of the session.
    public var medianHold: Double?
    public var medianDownDown: Double?
    public var medianUpDown: Double?
    public var medianUpUp: Double?
}

// MARK: - Small statistics

/// The median (mean of the middle two for an even count); `nil` when empty.
///
/// The middle values are found by selection (``selectOrderStatistic(_:_:)``) rather than
/// a full sort: a participant's keystroke intervals are pooled per entry, per string and
/// per session, and sorting them was 3 % of a study build (docs/perf-study.md, round
/// five). `MedianSelectionTests` compares it with a full sort.
///
/// The selection reorders a scratch copy in a temporary allocation (on the stack when
/// it is small), not a copy of the array: most lists are one entry's dozen intervals,
/// and the heap copy was most of their cost (round six).
public func median<T: BinaryInteger>(_ values: [T]) -> Double? {
    guard !values.isEmpty else { return nil }
    let n = values.count, k = n / 2
    // Short lists by a sorting network (``networkMedian(_:)``), pools of close-together
    // integers by counting (``countingMedian(_:)``).
    if T.self == Int.self {
        let ints = unsafeBitCast(values, to: [Int].self)
        if n <= 16 { return ints.withUnsafeBufferPointer { networkMedian($0) } }
        if n >= 64, let m = countingMedian(ints) { return m }
        // Pools whose span a few long pauses widen (``windowedCountingMedian(_:)``).
        if let m = ints.withUnsafeBufferPointer({ windowedCountingMedian($0) }) { return m }
    }
    return withUnsafeTemporaryAllocation(of: T.self, capacity: n) { v -> Double in
        _ = v.initialize(fromContentsOf: values)
        defer { v.deinitialize() }
        selectOrderStatistic(v, k)
        if n % 2 == 1 { return Double(v[k]) }
        // Everything before k is at most v[k]: the largest of it is the other middle value.
        var lower = v[0]
        for i in 1..<k where v[i] > lower { lower = v[i] }
        return (Double(lower) + Double(v[k])) / 2
    }
}

/// Reorders `b` so that `b[k]` holds the value a sort would put there, with nothing
/// larger before it and nothing smaller after it (Hoare's quickselect, median-of-three
/// pivot; a range still unsettled after 64 rounds is sorted, so the worst case stays
/// O(n log n)). A range of at most `shortRange` values is sorted by insertion instead
/// of partitioned: most lists are one entry's dozen intervals, and partitioning them
/// cost more than sorting (round six).
func selectOrderStatistic<T: Comparable>(_ b: UnsafeMutableBufferPointer<T>, _ k: Int, maxRounds: Int = 64,
                                         shortRange: Int = 16) {
    var lo = 0, hi = b.count - 1
    var rounds = 0
    while lo < hi {
        rounds += 1
        if rounds > maxRounds {
            var rest = UnsafeMutableBufferPointer(rebasing: b[lo...hi])
            rest.sort()
            return
        }
        if hi - lo < shortRange {
            for a in (lo + 1)...hi {
                let v = b[a]
                var c = a
                while c > lo && b[c - 1] > v { b[c] = b[c - 1]; c -= 1 }
                b[c] = v
            }
            return
        }
        let x = b[lo], y = b[lo + (hi - lo) / 2], z = b[hi]
        let pivot = max(min(x, y), min(max(x, y), z))
        var i = lo, j = hi
        while i <= j {
            while b[i] < pivot { i += 1 }
            while b[j] > pivot { j -= 1 }
            if i <= j { b.swapAt(i, j); i += 1; j -= 1 }
        }
        // b[lo...j] ≤ pivot ≤ b[i...hi]; anything between equals the pivot.
        if k <= j { hi = j } else if k >= i { lo = i } else { return }
    }
}

public func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let s = values.sorted()
    let n = s.count
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
}
