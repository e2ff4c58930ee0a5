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
}

/// The median through a full sort: the reference ``median(_:)`` is compared with.
func medianBySorting<T: BinaryInteger>(_ values: [T]) -> Double? {
    guard !values.isEmpty else { return nil }
    let s = values.sorted()
    let n = s.count
    return n % 2 == 1 ? Double(s[n / 2]) : (Double(s[n / 2 - 1]) + Double(s[n / 2])) / 2
}
