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
    /// Two ASCII texts without a CR (each byte one Character) are compared by their bytes
    /// (``editDistanceOfPlainBytes(_:_:)``); any other pair by Characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        let plain = a.withUTF8 { x in b.withUTF8 { y in editDistanceOfPlainBytes(x, y) } }
        return plain ?? editDistanceByCharacters(a, b)
    }

    /// ``editDistance(_:_:)`` over bytes, with its two rows in scratch memory, when every
    /// byte of both texts is ASCII and not CR (CR LF is one Character; every other ASCII
    /// byte is a Character of its own); nil for any other pair. Each recall text was
    /// compared with the ten strings as arrays of Characters, 13,000 instructions a
    /// pair (docs/perf-study.md, "Issue #45, the study's data path written from bytes";
    /// `EditDistanceTwinTests`).
    static func editDistanceOfPlainBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int? {
        func plain(_ b: UInt8) -> Bool { b < 0x80 && b != 0x0D }
        guard x.allSatisfy(plain), y.allSatisfy(plain) else { return nil }
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        let n = y.count
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * (n + 1)) { rows in
            var prev = rows.baseAddress!, cur = prev + (n + 1)
            for j in 0...n { prev[j] = j }
            for i in 1...x.count {
                cur[0] = i
                let xi = x[i - 1]
                for j in 1...n {
                    cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (xi == y[j - 1] ? 0 : 1))
                }
                swap(&prev, &cur)
            }
            return prev[n]
        }
    }

    /// ``editDistance(_:_:)`` by Characters, for any texts (the plain twin of the bytes).
    static func editDistanceByCharacters(_ a: String, _ b: String) -> Int {
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
