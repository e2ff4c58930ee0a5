// MARK: - Descriptive statistics of the study-wide tables (docs/recall-study-data.md)

/// The statistics the study-wide tables print, defined as pandas computes them so a
/// statistician's recomputation agrees.
public enum StudyStats {
    /// Arithmetic mean; nil for no values.
    public static func mean(_ v: [Double]) -> Double? {
        v.isEmpty ? nil : v.reduce(0, +) / Double(v.count)
    }

    /// Sample standard deviation (divisor n − 1, pandas' `std()` default); nil below 2 values.
    public static func sd(_ v: [Double]) -> Double? {
        guard v.count >= 2, let m = mean(v) else { return nil }
        return (v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count - 1)).squareRoot()
    }

    /// The `p` quantile (0…1) by linear interpolation between order statistics
    /// (Hyndman & Fan type 7: position (n − 1)·p; numpy's and pandas' default).
    public static func quantile(_ v: [Double], _ p: Double) -> Double? {
        quantile(sorted: v.sorted(), p)
    }

    /// ``quantile(_:_:)`` of values already sorted ascending (sort once, ask several).
    public static func quantile(sorted s: [Double], _ p: Double) -> Double? {
        guard !s.isEmpty else { return nil }
        let h = Double(s.count - 1) * p
        let lo = Int(h.rounded(.down)), hi = min(lo + 1, s.count - 1)
        return s[lo] + (h - Double(lo)) * (s[hi] - s[lo])
    }

    /// Interquartile range: quantile 0.75 − quantile 0.25 (type 7).
    public static func iqr(_ v: [Double]) -> Double? {
        guard let q3 = quantile(v, 0.75), let q1 = quantile(v, 0.25) else { return nil }
        return q3 - q1
    }

    /// Levenshtein distance in Characters (insert, delete, substitute: cost 1 each).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var prev = Array(0...y.count), cur = Array(repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            cur[0] = i
            for j in 1...y.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&prev, &cur)
        }
        return prev[y.count]
    }

    /// The smallest edit distance from `text` to any of `strings`, and the 1-based number
    /// of the first string at that distance.
    public static func nearest(_ text: String, in strings: [String]) -> (distance: Int, string: Int) {
        var best = (Int.max, 1)
        for (i, s) in strings.enumerated() {
            let d = editDistance(text, s)
            if d < best.0 { best = (d, i + 1) }
        }
        return best
    }
}
