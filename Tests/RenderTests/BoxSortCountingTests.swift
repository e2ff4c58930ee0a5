import Testing
@testable import Render
import SplitMix64

// `BoxStats.sortedFinite` sorts close whole numbers by counting (docs/perf-study.md,
// "Issue #45, the study build: cuts by measured share"); its twin is the standard
// library's stable sort of the finite values, compared bit for bit.

private func plainSortedFinite(_ values: [Double]) -> [Double] {
    values.filter(\.isFinite).sorted()
}

/// Whole numbers whose span lies around the counting path's bounds (4 × the count,
/// 65,536), with a few of: −0 and +0, a non-finite value, a fraction, a far outlier.
private func closeWholeNumbers(_ g: inout SplitMix64) -> [Double] {
    let n = Int.random(in: 1...3_000, using: &g)
    let spans = [0, 1, 2, n / 2, 4 * n - 2, 4 * n - 1, 4 * n, 4 * n + 1, 65_534, 65_535, 65_536, 70_000]
    let span = spans[Int.random(in: 0..<spans.count, using: &g)]
    let lo = [0, -40, 30, -70_000, 1 << 40][Int.random(in: 0..<5, using: &g)]
    var v = (0..<n).map { _ in Double(lo + Int.random(in: 0...span, using: &g)) }
    // Both ends present, so the span is the one chosen.
    v[Int.random(in: 0..<n, using: &g)] = Double(lo)
    v[Int.random(in: 0..<n, using: &g)] = Double(lo + span)
    switch Int.random(in: 0..<8, using: &g) {
    case 0: v[Int.random(in: 0..<n, using: &g)] = -0.0
    case 1: v[Int.random(in: 0..<n, using: &g)] = 0.0
    case 2: v[Int.random(in: 0..<n, using: &g)] = [Double.nan, .infinity, -.infinity][Int.random(in: 0...2, using: &g)]
    case 3: v[Int.random(in: 0..<n, using: &g)] = Double(lo) + 0.5
    case 4: v.append(Double(lo) + 0x1p51)
    default: break
    }
    return v
}

@Test func boxSortByCountingMatchesTheStandardSortBitForBit() {
    var g = SplitMix64(seed: 45)
    var counted = 0
    for _ in 0..<3_000 {
        let v = closeWholeNumbers(&g)
        let fast = BoxStats.sortedFinite(v)
        #expect(fast.map(\.bitPattern) == plainSortedFinite(v).map(\.bitPattern), "\(v.count) values")
        let finite = v.filter(\.isFinite)
        let negativeZero = finite.contains { $0 == 0 && $0.sign == .minus }
        if let lo = finite.min(), let hi = finite.max(), !negativeZero, finite.allSatisfy({ $0 == $0.rounded() }),
           let direct = BoxStats.sortedByCounting(finite, lo: lo, hi: hi) {
            counted += 1
            #expect(direct.map(\.bitPattern) == plainSortedFinite(v).map(\.bitPattern))
        }
    }
    #expect(counted > 500)
    // Signed zeros keep their order (the counting path declines them); a zero from
    // a negative `lo` comes out as +0 as the list had it.
    for v: [Double] in [[0, -0.0, 1, -1, 0], [-0.0, 2, 0, 1], [-2, 0, -1, 0, 2], [3, 3, 3]] {
        #expect(BoxStats.sortedFinite(v).map(\.bitPattern) == plainSortedFinite(v).map(\.bitPattern))
    }
    // Where counting declines: at 4 × the count and at 65,536.
    #expect(BoxStats.sortedByCounting([0, 8], lo: 0, hi: 8) == nil)
    #expect(BoxStats.sortedByCounting([0, 7], lo: 0, hi: 7) == [0, 7])
    let wide = (0..<20_000).map { Double($0 * 4) }
    #expect(BoxStats.sortedByCounting(wide, lo: 0, hi: 79_996) == nil)
}
