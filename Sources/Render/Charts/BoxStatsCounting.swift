// MARK: - Box statistics straight from counts

extension BoxStats {
    /// The statistics of whole numbers that lie close together, from a count of each value,
    /// without the sorted list: what `BoxStats(sortedFinite: sortedFinite(values))` gives,
    /// bit for bit, or nil when `values` is not such a list (then ``init(values:)`` sorts).
    ///
    /// A participant page's box plot has four groups of a participant's keystroke intervals
    /// (whole milliseconds, ≈ 1,000 values each). Sorting them by counting
    /// (``sortedByCounting(_:lo:hi:)``), then two filters for the whiskers and outliers and
    /// a sum of the sorted list were 39 M instructions for 50 participants
    /// (docs/perf-study.md, "the participant page's charts and tables"). Here one pass
    /// checks the values (every one finite, whole, below 2^52 in magnitude and not −0; the
    /// least and greatest less than 4 × the count and 65,536 apart, as the counting sort
    /// asks) and sums them as integers, one pass counts them, one walk over the counts
    /// finds the six order statistics the three quartiles read, and one more the whiskers
    /// and the outliers. The sum is exact in both ways when every partial sum stays below
    /// 2^53 (count × largest magnitude < 2^53, checked), so the mean is the same `Double`.
    ///
    /// `BoxStatsCountingTests` compares it with the sorted path (empty, one value, ties,
    /// all equal, the bounds of the span, huge magnitudes, −0, non-finite values).
    static func fromCounts(_ values: [Double]) -> BoxStats? {
        let n = values.count
        guard n > 0, abs(values[0]) < 0x1p52 else { return nil }
        var lo = Int(values[0]), hi = lo
        var sum = 0
        for x in values {
            // Whole, finite and below 2^52 (NaN and ±∞ fail the first test), not −0.
            guard abs(x) < 0x1p52 else { return nil }
            let i = Int(x)
            guard Double(i) == x, x.bitPattern != (-0.0).bitPattern else { return nil }
            if i < lo { lo = i }
            if i > hi { hi = i }
            sum &+= i
        }
        return counted(n: n, lo: lo, hi: hi, sum: sum) { counts in
            for x in values { counts[Int(x) - lo] &+= 1 }
        }
    }

    /// ``fromCounts(_:)`` of whole numbers as they are: what it gives for
    /// `values.map(Double.init)`, bit for bit, without the `Double`s (a participant's
    /// keystroke intervals are `[Int]`; each was made a `Double`, then checked to be whole
    /// and made an `Int` again). Nil where that would be nil (a magnitude of 2^52 or more,
    /// a span too wide for counting); ``init(whole:)`` then takes the sorting path.
    /// `BoxStatsWholeTwinTests` compares the two.
    static func fromCounts(whole values: [Int]) -> BoxStats? {
        let n = values.count
        guard n > 0 else { return nil }
        var lo = values[0], hi = lo
        var sum = 0
        for i in values {
            if i < lo { lo = i }
            if i > hi { hi = i }
            sum &+= i
        }
        // The `Double` path's test, |x| < 2^52, for every value: on the least and greatest.
        guard lo > -(1 << 52), hi < 1 << 52 else { return nil }
        return counted(n: n, lo: lo, hi: hi, sum: sum) { counts in
            for i in values { counts[i - lo] &+= 1 }
        }
    }

    /// The statistics from the counts `count` fills in (one per value from `lo` to `hi`)
    /// of `n` whole numbers of magnitude below 2^52 summing to `sum` (wrapped when it
    /// overflowed: then nil, by the bound on count × magnitude), or nil when they are too
    /// many or too far apart to count.
    private static func counted(n: Int, lo: Int, hi: Int, sum: Int,
                                count: (UnsafeMutableBufferPointer<Int32>) -> Void) -> BoxStats? {
        guard Double(n) * Double(Swift.max(-lo, hi)) < 0x1p53 else { return nil }
        let span = hi - lo
        guard span < 4 * n, span < 65_536, n < Int(Int32.max) else { return nil }
        let low = Double(lo)
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: span + 1) { counts -> BoxStats in
            counts.initialize(repeating: 0)
            count(counts)
            // The order statistics the quartiles read (``quantile(sorted:_:)``), found in
            // one walk in the order of their indices (for fewer than five values a
            // quartile's upper one comes after the next quartile's lower one).
            let h = (Double(n - 1) * 0.25, Double(n - 1) * 0.5, Double(n - 1) * 0.75)
            let l = (Int(h.0.rounded(.down)), Int(h.1.rounded(.down)), Int(h.2.rounded(.down)))
            let at = [l.0, Swift.min(l.0 + 1, n - 1), l.1, Swift.min(l.1 + 1, n - 1), l.2, Swift.min(l.2 + 1, n - 1)]
            let order = at.indices.sorted { at[$0] < at[$1] }
            var value = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
            withUnsafeMutableBytes(of: &value) { raw in
                let v = raw.bindMemory(to: Double.self)
                var next = 0, seen = 0, i = 0
                while next < 6 {
                    seen += Int(counts[i])
                    while next < 6, at[order[next]] < seen {
                        v[order[next]] = low + Double(i)
                        next += 1
                    }
                    i += 1
                }
            }
            let q1 = value.0 + (h.0 - Double(l.0)) * (value.1 - value.0)
            let median = value.2 + (h.1 - Double(l.1)) * (value.3 - value.2)
            let q3 = value.4 + (h.2 - Double(l.2)) * (value.5 - value.4)
            let lowFence = q1 - 1.5 * (q3 - q1), highFence = q3 + 1.5 * (q3 - q1)
            // From the bottom: the outliers below the low fence, up to the first value at or
            // above it; from the top: those above the high fence, down to the first value at
            // or below it. Every value between the two is inside the fences.
            var outliers: [Double] = [], above: [Double] = []
            var b = 0
            while b <= span {
                let c = Int(counts[b])
                if c > 0 {
                    let x = low + Double(b)
                    if x >= lowFence { break }
                    for _ in 0..<c { outliers.append(x) }
                }
                b += 1
            }
            var t = span
            while t >= b {
                let c = Int(counts[t])
                if c > 0 {
                    let x = low + Double(t)
                    if x <= highFence { break }
                    for _ in 0..<c { above.append(x) }
                }
                t -= 1
            }
            outliers.append(contentsOf: above.reversed())
            let inside = b <= t
            return BoxStats(count: n, min: low, q1: q1, median: median, q3: q3, max: Double(hi),
                            mean: Double(sum) / Double(n), lowerWhisker: inside ? low + Double(b) : q1,
                            upperWhisker: inside ? low + Double(t) : q3, outliers: outliers)
        }
    }

    /// Statistics of whole numbers: ``init(values:)`` of `values.map(Double.init)`, counted
    /// from the integers when they lie close together (``fromCounts(whole:)``).
    public init?(whole values: [Int]) {
        if let counted = BoxStats.fromCounts(whole: values) { self = counted; return }
        self.init(values: values.map(Double.init))
    }

    init(count: Int, min: Double, q1: Double, median: Double, q3: Double, max: Double, mean: Double,
         lowerWhisker: Double, upperWhisker: Double, outliers: [Double]) {
        self.count = count
        self.min = min
        self.q1 = q1
        self.median = median
        self.q3 = q3
        self.max = max
        self.mean = mean
        self.lowerWhisker = lowerWhisker
        self.upperWhisker = upperWhisker
        self.outliers = outliers
    }
}
