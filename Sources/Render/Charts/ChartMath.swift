#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Number formatting

/// Fixed, locale-free number formatting so the same chart gives the same bytes.
public enum ChartNumber {
    /// A coordinate: rounded to 2 decimals, trailing zeros removed, never `-0`.
    public static func coord(_ x: Double) -> String {
        guard x.isFinite else { return "0" }
        let hundredths = (x * 100).rounded()
        guard abs(hundredths) < 9e15 else { return cFormat("%.0f", x) }
        // `DecimalText.hundredths` writes into a stack buffer (round six wrote coordinates
        // so here; round seven made it the shared writer).
        return DecimalText.hundredths(Int64(hundredths))
    }

    /// `s` as drawn on a chart: a leading hyphen-minus becomes U+2212 MINUS SIGN (`−0.4`),
    /// the sign typography uses for a negative number (tick labels and value labels; the
    /// numbers in `<desc>` and tooltips too). Side outputs keep `-`.
    public static func drawn(_ s: String) -> String { ValueFormat.minus(s) }

    /// ``value(_:)`` as drawn or written for readers (tooltips, `<desc>`, value labels):
    /// a negative value with U+2212 (``drawn(_:)``).
    public static func shown(_ x: Double) -> String { drawn(value(x)) }

    /// A value shown to readers (cell values, summaries): integers as integers,
    /// |x| ≥ 0.01 with at most 2 decimals, smaller with 3 significant digits.
    public static func value(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "NaN" : (x < 0 ? "-∞" : "∞") }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        if abs(x) >= 0.01 || abs(x) >= 1e15 {
            if abs(x) >= 1e15 { return cFormat("%.3g", x) }
            return coord(x)
        }
        var s = cFormat("%.3g", x)
        if s.contains("e") { return s }
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }

    /// A tick label for a tick of the given step: as many decimals as the step needs
    /// (none for steps ≥ 1), `k`/`M`/`G` suffixes from one million up, an exponent
    /// for steps below 1e-6.
    public static func tick(_ x: Double, step: Double) -> String {
        guard x.isFinite else { return "" }
        let step = abs(step)
        if step > 0, step < 1e-6 { return cFormat("%.2e", x) }
        let ax = abs(x)
        if ax >= 1e6 {
            let (div, suffix): (Double, String) = ax >= 1e9 ? (1e9, "G") : (1e6, "M")
            return fixed(x / div, decimals: decimals(forStep: step / div)) + suffix
        }
        return fixed(x, decimals: decimals(forStep: step))
    }

    /// ``fixed(_:decimals:)`` without Foundation's printf (1.5 % of a study build, for
    /// tick labels) when x·10^decimals is a whole number below 10^15, as every tick of a
    /// nice scale is: the product is exact to 1/16, so the true value is that whole number
    /// to far less than the half that `%.Nf` rounds at, and printf prints it. nil
    /// otherwise (printf decides). Never `-0`.
    static func fixedWhole(_ x: Double, decimals: Int) -> String? {
        guard decimals >= 0, decimals <= 6 else { return nil }
        let scaled = x * [1.0, 10, 100, 1_000, 10_000, 100_000, 1_000_000][decimals]
        guard scaled == scaled.rounded(), abs(scaled) < 1e15 else { return nil }
        let k = Int64(scaled)
        var digits = String(k.magnitude)
        if decimals > 0 {
            if digits.count <= decimals { digits = String(repeating: "0", count: decimals + 1 - digits.count) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
        }
        return k < 0 ? "-" + digits : digits
    }

    /// Decimals needed to write multiples of `step` exactly (0 for steps ≥ 1, at most 6).
    static func decimals(forStep step: Double) -> Int {
        guard step > 0, step.isFinite else { return 0 }
        var d = 0
        var s = step
        while d < 6, abs(s - s.rounded()) > 1e-9 * max(1, abs(s)) {
            s *= 10
            d += 1
        }
        return d
    }

    static func fixed(_ x: Double, decimals: Int) -> String {
        if let s = fixedWhole(x, decimals: decimals) { return s }
        let s = cFormat("%.\(decimals)f", x)
        // "-0", "-0.0" → "0", "0.0"
        if s.hasPrefix("-"), s.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { return String(s.dropFirst()) }
        return s
    }
}

// MARK: - Nice ticks

/// An axis range extended to "nice" tick values: steps of 1, 2 or 5 × 10^k.
public struct NiceScale: Sendable, Equatable {
    public var lower: Double
    public var upper: Double
    public var step: Double

    /// Tick values from `lower` to `upper` inclusive.
    public var ticks: [Double] {
        guard step > 0 else { return [lower] }
        let n = Int(((upper - lower) / step).rounded())
        return (0...max(0, n)).map { i in
            let v = lower + Double(i) * step
            // snap away float noise (0.30000000000000004 → 0.3)
            let d = Double(ChartNumber.decimals(forStep: step))
            let p = pow(10, d)
            let snapped = (v * p).rounded() / p
            return snapped == 0 ? 0 : snapped
        }
    }

    /// The 1-2-5 step nearest to `raw` on a log scale: with raw = f·10^k (1 ≤ f < 10),
    /// f < √2 → 1, f < √10 → 2, f < √50 → 5, otherwise 10 (the rule of d3's `tickStep`).
    public static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let exp = floor(log10(raw))
        let base = pow(10, exp)
        let f = raw / base
        let m: Double
        if f < 2.0.squareRoot() {
            m = 1
        } else if f < 10.0.squareRoot() {
            m = 2
        } else if f < 50.0.squareRoot() {
            m = 5
        } else {
            m = 10
        }
        return m * base
    }

    /// A scale covering `min...max` with about `count` intervals:
    /// step = ``niceStep(_:)`` of (max − min) / count, ends rounded outwards to multiples
    /// of the step. If `min == max` the range is first widened by 10% of |min| (or by 1
    /// when it is 0) on each side; non-finite bounds give 0…1. `integer` (counts,
    /// ordinal categories) makes the step at least 1, so every tick is a whole number,
    /// and widens an empty range by 1.
    public init(min: Double, max: Double, count: Int = 5, integer: Bool = false) {
        var lo = Swift.min(min, max), hi = Swift.max(min, max)
        if !lo.isFinite || !hi.isFinite { lo = 0; hi = 1 }
        if lo == hi {
            let d = lo == 0 || integer ? 1 : abs(lo) * 0.1
            lo -= d
            hi += d
        }
        let n = Swift.max(1, count)
        let raw = NiceScale.niceStep((hi - lo) / Double(n))
        let step = integer ? Swift.max(1, raw) : raw
        let l = floor(lo / step + 1e-9) * step
        let u = ceil(hi / step - 1e-9) * step
        self.lower = l == 0 ? 0 : l
        self.upper = u == 0 ? 0 : u
        self.step = step
    }

    public init(lower: Double, upper: Double, step: Double) {
        self.lower = lower
        self.upper = upper
        self.step = step
    }
}

/// Whether every value is a whole number (then an axis of them gets integer ticks).
func allWhole(_ values: [Double]) -> Bool {
    !values.isEmpty && values.allSatisfy { !$0.isFinite || $0 == $0.rounded() }
}

// MARK: - Quartiles and box statistics

/// The numbers a box plot draws.
public struct BoxStats: Sendable, Equatable {
    public var count: Int
    public var min: Double
    public var q1: Double
    public var median: Double
    public var q3: Double
    public var max: Double
    public var mean: Double
    /// Tukey whiskers: the most extreme data points within 1.5 IQR of the box.
    public var lowerWhisker: Double
    public var upperWhisker: Double
    /// Points outside the whiskers, ascending.
    public var outliers: [Double]

    public var iqr: Double { q3 - q1 }

    /// Statistics of the finite values, or nil when there are none.
    public init?(values: [Double]) {
        if let counted = BoxStats.fromCounts(values) { self = counted; return }  // (close whole numbers)
        self.init(sortedFinite: BoxStats.sortedFinite(values))
    }

    /// Statistics of `v`: finite values, ascending (``sortedFinite(_:)``).
    init?(sortedFinite v: [Double]) {
        guard !v.isEmpty else { return nil }
        count = v.count
        min = v[0]
        max = v[v.count - 1]
        q1 = BoxStats.quantile(sorted: v, 0.25)
        median = BoxStats.quantile(sorted: v, 0.5)
        q3 = BoxStats.quantile(sorted: v, 0.75)
        mean = v.reduce(0, +) / Double(v.count)
        let lowFence = q1 - 1.5 * (q3 - q1), highFence = q3 + 1.5 * (q3 - q1)
        let inside = v.filter { $0 >= lowFence && $0 <= highFence }
        lowerWhisker = inside.first ?? q1
        upperWhisker = inside.last ?? q3
        outliers = v.filter { $0 < lowFence || $0 > highFence }
    }

    /// The finite values of `values` ascending, equal values in input order: what
    /// `values.filter(\.isFinite).sorted()` gives (the standard library's sort is
    /// stable), bit for bit. When every value is a whole number below 2^52 in magnitude
    /// (keystroke intervals in milliseconds: the participant page's box plot), a stable
    /// radix sort on `value − min` does it in a few linear passes; the merge sort was a
    /// fifth of the page's charts (docs/perf-study.md, "Round five, charts").
    ///
    /// When the whole numbers also lie close together (less than 4 × their count and
    /// 65,536 apart, as a participant's keystroke intervals do) and none is −0, they are
    /// sorted by counting (``sortedByCounting(_:lo:hi:)``). Whether a value is whole is
    /// asked of its conversion to `Int64`, not of `rounded()` (a call into the C library
    /// per value).
    static func sortedFinite(_ values: [Double]) -> [Double] {
        let v = values.filter { $0.isFinite }
        guard v.count > 1 else { return v }
        var lo = v[0], hi = v[0]
        var negativeZero = false
        for x in v {
            guard abs(x) < 0x1p52, Double(Int64(x)) == x else { return v.sorted() }
            lo = Swift.min(lo, x)
            hi = Swift.max(hi, x)
            if x == 0, x.sign == .minus { negativeZero = true }
        }
        if !negativeZero, let counted = sortedByCounting(v, lo: lo, hi: hi) { return counted }
        // x − lo is exact (whole numbers below 2^53) and a key below 2^53.
        let bits = UInt64.bitWidth - UInt64(hi - lo).leadingZeroBitCount
        var from = v
        var to = v
        var shift = 0
        var count = [Int](repeating: 0, count: 257)
        while shift < bits {
            for d in count.indices { count[d] = 0 }
            for x in from { count[Int((UInt64(x - lo) >> UInt64(shift)) & 0xFF) + 1] += 1 }
            for d in 1..<257 { count[d] += count[d - 1] }
            for x in from {
                let d = Int((UInt64(x - lo) >> UInt64(shift)) & 0xFF)
                to[count[d]] = x
                count[d] += 1
            }
            swap(&from, &to)
            shift += 8
        }
        return from
    }

    /// `v` (whole numbers from `lo` to `hi`, below 2^52 in magnitude, no −0: equal values
    /// are equal bit for bit) ascending by counting each value; nil when `hi − lo` is
    /// 4 × the count or more, or 65,536 or more (the walk over the buckets would cost more).
    static func sortedByCounting(_ v: [Double], lo: Double, hi: Double) -> [Double]? {
        let n = v.count
        let span = Int(hi - lo)
        guard span < 4 * n, span < 65_536 else { return nil }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: span + 1) { counts in
            counts.initialize(repeating: 0)
            for x in v { counts[Int(x - lo)] += 1 }
            return [Double](unsafeUninitializedCapacity: n) { out, written in
                var k = 0
                for i in 0...span where counts[i] > 0 {
                    let x = lo + Double(i)
                    for _ in 0..<counts[i] {
                        out[k] = x
                        k += 1
                    }
                }
                written = k
            }
        }
    }

    /// Quantile by linear interpolation between order statistics (Hyndman & Fan type 7,
    /// R's default, NumPy's `linear`): h = (n − 1)·p, q = x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])
    /// with 0-based `x` sorted ascending.
    public static func quantile(sorted v: [Double], _ p: Double) -> Double {
        precondition(!v.isEmpty)
        let h = Double(v.count - 1) * Swift.min(1, Swift.max(0, p))
        let lo = Int(h.rounded(.down))
        let hi = Swift.min(lo + 1, v.count - 1)
        return v[lo] + (h - Double(lo)) * (v[hi] - v[lo])
    }
}

// MARK: - Histogram bins

/// Equal-width histogram bins.
public struct HistogramBins: Sendable, Equatable {
    /// `counts.count + 1` edges, ascending.
    public var edges: [Double]
    public var counts: [Int]
    /// How the bin count was chosen: "given", "freedman-diaconis" or "sturges".
    public var rule: String

    /// Bins the finite values. With `bins` given, that many equal bins from min to max;
    /// otherwise Freedman–Diaconis width h = 2·IQR·n^(−1/3) (type-7 quartiles) and
    /// k = ⌈(max − min)/h⌉, falling back to Sturges k = ⌈log2 n⌉ + 1 when IQR = 0;
    /// k is clamped to 1…200. If all values are equal the range is value ± 0.5.
    /// Bins are [e_i, e_{i+1}), the last one closed. Nil when no finite values.
    public init?(values: [Double], bins: Int? = nil) {
        let v = values.filter(\.isFinite).sorted()
        guard let first = v.first, let last = v.last else { return nil }
        var lo = first, hi = last
        if lo == hi { lo -= 0.5; hi += 0.5 }
        var k: Int
        if let b = bins, b > 0 {
            k = b
            rule = "given"
        } else {
            let iqr = BoxStats.quantile(sorted: v, 0.75) - BoxStats.quantile(sorted: v, 0.25)
            let h = 2 * iqr * pow(Double(v.count), -1.0 / 3.0)
            if h > 0, last > first {
                k = Int(ceil((last - first) / h))
                rule = "freedman-diaconis"
            } else {
                k = Int(ceil(log2(Double(v.count)))) + 1
                rule = "sturges"
            }
        }
        k = Swift.min(200, Swift.max(1, k))
        let width = (hi - lo) / Double(k)
        edges = (0...k).map { i in i == k ? hi : lo + Double(i) * width }
        var c = [Int](repeating: 0, count: k)
        for x in v {
            var i = Swift.min(k - 1, Swift.max(0, Int((x - lo) / width)))
            if i > 0, x < edges[i] { i -= 1 }
            if i < k - 1, x >= edges[i + 1] { i += 1 }
            c[i] += 1
        }
        counts = c
    }
}
