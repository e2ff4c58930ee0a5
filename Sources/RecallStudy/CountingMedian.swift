/// The median of integers that lie close together, by counting: keystroke intervals are
/// whole milliseconds in a narrow range, and a participant's string- and session-wide
/// pools (≈ 100 and ≈ 1,000 values, eight of them per string) were partitioned by
/// ``selectOrderStatistic(_:_:maxRounds:shortRange:)`` (1.8 % of a study build;
/// docs/perf-study.md, "Issue #45, the study toward its floor").
///
/// One pass finds the least and greatest value; when they are less than 4 × the count
/// apart (and less than 65,536), one pass counts each value and a walk over the counts
/// finds the middle one or two. Otherwise nil, and ``median(_:)`` selects as before.
/// `MedianSelectionTests` compares it with a full sort.
func countingMedian(_ values: [Int]) -> Double? {
    let n = values.count
    guard n > 0 else { return nil }
    var lo = values[0], hi = values[0]
    for v in values {
        if v < lo { lo = v } else if v > hi { hi = v }
    }
    let (span, overflow) = hi.subtractingReportingOverflow(lo)
    guard !overflow, span < 4 * n, span < 65_536 else { return nil }
    return withUnsafeTemporaryAllocation(of: Int32.self, capacity: span + 1) { counts -> Double in
        counts.initialize(repeating: 0)
        for v in values { counts[v - lo] += 1 }
        // `seen` values lie below bucket i; the sorted list's k-th value is in the first
        // bucket whose counts reach past k.
        let k = n / 2
        var seen = 0, i = 0
        while seen + Int(counts[i]) <= k {
            seen += Int(counts[i])
            i += 1
        }
        let upper = lo + i
        if n % 2 == 1 { return Double(upper) }
        // The (k − 1)-th value: in the same bucket, or (when bucket i starts at k) in the
        // nearest bucket below that holds any.
        var lower = upper
        if seen == k {
            var j = i - 1
            while counts[j] == 0 { j -= 1 }
            lower = lo + j
        }
        return (Double(lower) + Double(upper)) / 2
    }
}
