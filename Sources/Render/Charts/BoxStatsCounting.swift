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
        guard n > 0 else { return nil }
        var lo = values[0], hi = values[0]
        var sum = 0
        for x in values {
            // Whole, finite and below 2^52 (NaN and ±∞ fail the first test), not −0.
            guard abs(x) < 0x1p52, Double(Int64(x)) == x, !(x == 0 && x.sign == .minus) else { return nil }
            lo = Swift.min(lo, x)
            hi = Swift.max(hi, x)
            sum &+= Int(x)
        }
        guard Double(n) * Swift.max(abs(lo), abs(hi)) < 0x1p53 else { return nil }
        let span = Int(hi - lo)
        guard span < 4 * n, span < 65_536 else { return nil }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: span + 1) { counts -> BoxStats in
            counts.initialize(repeating: 0)
            for x in values { counts[Int(x - lo)] += 1 }
            // The order statistics the quartiles read (``quantile(sorted:_:)``), ascending.
            let h = [0.25, 0.5, 0.75].map { Double(n - 1) * $0 }
            var at = [Int](), value = [Double](repeating: 0, count: 6)
            for q in h {
                let l = Int(q.rounded(.down))
                at.append(l)
                at.append(Swift.min(l + 1, n - 1))
            }
            var next = 0, seen = 0, i = 0
            while next < 6 {
                seen += counts[i]
                while next < 6, at[next] < seen {
                    value[next] = lo + Double(i)
                    next += 1
                }
                i += 1
            }
            func quartile(_ k: Int) -> Double {
                value[2 * k] + (h[k] - Double(at[2 * k])) * (value[2 * k + 1] - value[2 * k])
            }
            let q1 = quartile(0), median = quartile(1), q3 = quartile(2)
            let lowFence = q1 - 1.5 * (q3 - q1), highFence = q3 + 1.5 * (q3 - q1)
            var lowerWhisker: Double?, upperWhisker: Double?
            var outliers: [Double] = []
            for b in 0...span where counts[b] > 0 {
                let x = lo + Double(b)
                if x >= lowFence && x <= highFence {
                    if lowerWhisker == nil { lowerWhisker = x }
                    upperWhisker = x
                } else {
                    for _ in 0..<counts[b] { outliers.append(x) }
                }
            }
            return BoxStats(count: n, min: lo, q1: q1, median: median, q3: q3, max: hi,
                            mean: Double(sum) / Double(n), lowerWhisker: lowerWhisker ?? q1,
                            upperWhisker: upperWhisker ?? q3, outliers: outliers)
        }
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
