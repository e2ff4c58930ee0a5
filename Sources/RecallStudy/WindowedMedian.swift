// The median of a pool of keystroke intervals with a few long pauses among them
// (docs/perf-study.md, "Issue #45, the participant analysis and its JSON").

/// The median of 17 or more integers by counting in a window around the median of a
/// sample, for pools that ``countingMedian(_:)`` leaves because a few values (a pause of
/// seconds among intervals of a few hundred milliseconds) make their whole span too wide.
/// The sample is 16 values spread over the list, sorted by the network
/// (``sortByNetwork16(_:)``); the window is the 4 × count (at most 65,536) values centred
/// on its median. One pass counts each value in the window, and how many lie below it
/// and the largest of those. When the middle value is in the window (for an even count
/// the one before it may be the largest below), the walk over the counts finds it, as
/// ``countingMedian(_:)`` does; otherwise nil, and
/// ``median(_:)`` selects (``selectOrderStatistic(_:_:maxRounds:shortRange:)``, whose
/// partitions mispredict on these pools). The plain twin is `medianBySorting`
/// (`WalkTwinTests`).
func windowedCountingMedian(_ values: UnsafeBufferPointer<Int>) -> Double? {
    let n = values.count
    guard n > 16 else { return nil }
    var sample = InlineArray<16, Int>(repeating: 0)
    for i in 0..<16 { sample[i] = values[i * n / 16] }
    sortByNetwork16(&sample)
    let width = min(4 * n, 65_536)
    let (start, o1) = sample[8].subtractingReportingOverflow(width / 2)
    let (end, o2) = start.addingReportingOverflow(width)   // the window is start..<end
    guard !o1, !o2 else { return nil }
    let k = n / 2
    return withUnsafeTemporaryAllocation(of: Int32.self, capacity: width) { counts -> Double? in
        counts.initialize(repeating: 0)
        var below = 0, largestBelow = Int.min
        for v in values {
            if v < start {
                below += 1
                largestBelow = max(largestBelow, v)
            } else if v < end {
                counts[v - start] += 1
            }
        }
        // The k-th value (0-based) of the sorted list, and the (k − 1)-th for an even count.
        guard k >= below else { return nil }
        var seen = below, i = 0
        while i < width, seen + Int(counts[i]) <= k {
            seen += Int(counts[i])
            i += 1
        }
        guard i < width else { return nil }   // the k-th value is above the window
        let upper = start + i
        if n % 2 == 1 { return Double(upper) }
        var lower = upper
        if seen == k {
            // The (k − 1)-th value: the nearest bucket below i that holds any, or the
            // largest value below the window.
            var j = i - 1
            while j >= 0, counts[j] == 0 { j -= 1 }
            lower = j >= 0 ? start + j : largestBelow
        }
        return (Double(lower) + Double(upper)) / 2
    }
}
