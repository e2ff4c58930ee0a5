// The median of a short list of integers without data-dependent branches
// (docs/perf-study.md, "Issue #45, the participant analysis and its JSON"): a sorting
// network. The analyzer's lists are keystroke intervals in random order, so the
// insertion sort's branches on their values were mispredicted about half the time:
// ``selectOrderStatistic`` was 2 % of the CPU samples of a study build for 0.5 % of its
// instructions.

/// The median of 1–16 integers: the values are copied into 16 slots on the stack, the
/// rest filled with `Int.max`, and the first 8 or 16 sorted by Batcher's odd–even merge
/// network (19 or 63 compare-exchanges, each a `min` and a `max` without a branch,
/// written out in SortingNetworks.swift); the middle one or two slots are the median.
/// Most lists the analyzer takes a median of are one entry's dozen intervals. Nil when
/// the list is empty or longer than 16. The plain twin is `medianBySorting`
/// (`WalkTwinTests`).
func networkMedian(_ values: UnsafeBufferPointer<Int>) -> Double? {
    let n = values.count
    guard n > 0, n <= 16, let from = values.baseAddress else { return nil }
    let s = sortedPadded(from, count: n)
    let k = n / 2
    return n % 2 == 1 ? Double(s[k]) : (Double(s[k - 1]) + Double(s[k])) / 2
}

/// The `n` (1–16) values at `from` in 16 slots, the rest `Int.max`, the first 8 or 16
/// sorted (``sortByNetwork8(_:)``, ``sortByNetwork16(_:)``: Batcher's odd–even merge
/// network written out). An `InlineArray`, not a temporary allocation: the release
/// compiler dropped the restore of the closure's error register (r12) before a tail
/// call to `memmove` in a `withUnsafeTemporaryAllocation` body that used r12 for the
/// network, and the caller took the garbage for a thrown error.
@inline(__always) private func sortedPadded(_ from: UnsafePointer<Int>, count n: Int) -> InlineArray<16, Int> {
    var s = InlineArray<16, Int>(repeating: .max)
    for i in 0..<n { s[i] = from[i] }
    if n <= 8 { sortByNetwork8(&s) } else { sortByNetwork16(&s) }
    return s
}
