import Testing
@testable import RecallStudy

/// `median` by selection against `medianBySorting`, the full sort it replaced: sizes
/// 1–300 and 5,000, few and many distinct values, negatives, sorted, reversed, constant
/// and sawtooth inputs (the shapes that break a careless quickselect).
struct MedianSelectionTests {
    @Test func selectionAsSorting() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        var inputs: [[Int]] = []
        for n in Array(1...300) + [5_000] {
            inputs.append((0..<n).map { _ in next(1_000) - 200 })   // many distinct, negatives
            inputs.append((0..<n).map { _ in next(3) })               // few distinct
            inputs.append(Array(0..<n))
            inputs.append(Array((0..<n).reversed()))
            inputs.append(Array(repeating: 7, count: n))
            inputs.append((0..<n).map { $0 % 5 })
        }
        for v in inputs {
            #expect(median(v) == medianBySorting(v), "\(v.prefix(20)) (\(v.count))")
        }
        #expect(median([Int]()) == nil)
        #expect(median([Int.max, Int.max - 1]) == medianBySorting([Int.max, Int.max - 1]))
    }

    @Test func selectedValueIsInPlace() {
        for n in 1...60 {
            for k in 0..<n {
                var v = (0..<n).map { ($0 * 37 + 11) % (n / 2 + 1) }   // with repeats
                let sorted = v.sorted()
                // 0 rounds: the fallback sort
                v.withUnsafeMutableBufferPointer { selectOrderStatistic($0, k, maxRounds: (k % 3) * 2) }
                #expect(v[k] == sorted[k])
                #expect(v[..<k].allSatisfy { $0 <= sorted[k] } && v[(k + 1)...].allSatisfy { $0 >= sorted[k] })
                #expect(v.sorted() == sorted)
                // Partitioning alone (no short range sorted by insertion), then insertion alone.
                for short in [0, n] {
                    var w = (0..<n).map { ($0 * 53 + 7) % (n / 3 + 2) }
                    w.withUnsafeMutableBufferPointer { selectOrderStatistic($0, k, shortRange: short) }
                    let ws = w.sorted()
                    #expect(w[k] == ws[k], "short range \(short)")
                    #expect(w[..<k].allSatisfy { $0 <= ws[k] } && w[(k + 1)...].allSatisfy { $0 >= ws[k] })
                }
            }
        }
    }

    /// The counting path on its own and through `median`: spans around the 4 × count and
    /// 65,536 bounds (nil beyond them), gaps so the two middle values sit in buckets
    /// apart, negatives, the extremes of `Int` (a span that overflows), keystroke-like
    /// pools of milliseconds.
    @Test func countingAsSorting() {
        var rng = MedianTestRandom(seed: 45)
        var inputs: [[Int]] = [[Int.min, Int.max], [Int.max, Int.max - 1, Int.min], [-5], [3, 1], [0, 0, 9, 9]]
        for n in [1, 2, 3, 63, 64, 65, 100, 101, 1_000, 1_001, 20_000] {
            for span in [0, 1, 2, 5, n / 2, 4 * n - 1, 4 * n, 70_000] where span >= 0 {
                inputs.append((0..<n).map { _ in rng.int(span + 1) - span / 3 })
            }
            // two clusters far apart: the middle two values in different buckets
            inputs.append((0..<n).map { $0 < n / 2 ? rng.int(3) : 50 + rng.int(3) })
            inputs.append((0..<n).map { _ in 80 + rng.int(400) + (rng.int(20) == 0 ? rng.int(3_000) : 0) })
        }
        for v in inputs {
            let sorted = medianBySorting(v)
            #expect(median(v) == sorted, "\(v.prefix(12)) (\(v.count))")
            if let m = countingMedian(v) { #expect(m == sorted, "\(v.prefix(12)) (\(v.count))") }
            let lo = v.min() ?? 0, hi = v.max() ?? 0
            let (span, o) = hi.subtractingReportingOverflow(lo)
            #expect((countingMedian(v) != nil) == (!v.isEmpty && !o && span < 4 * v.count && span < 65_536))
        }
    }
}

/// A small seeded generator for the counting test.
struct MedianTestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func int(_ n: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(n, 1)))
    }
}

/// The median through a full sort: the reference ``median(_:)`` is compared with.
func medianBySorting<T: BinaryInteger>(_ values: [T]) -> Double? {
    guard !values.isEmpty else { return nil }
    let s = values.sorted()
    let n = s.count
    return n % 2 == 1 ? Double(s[n / 2]) : (Double(s[n / 2 - 1]) + Double(s[n / 2])) / 2
}
