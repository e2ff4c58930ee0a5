#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - The AUC of fixed scores, released with a sensitivity that does not depend on the data

/// The Mann–Whitney AUC of scores that are fixed per person (each person's score depends on
/// their own data and on public numbers only), normalised with a public floor M so that
/// adding or removing one person moves it by at most 1/M (docs/game-privacy.md, "The AUC").
///
/// With U the Mann–Whitney count (pairs of one positive and one negative where the positive
/// scores higher, ties ½), a = max(n₊, M) and b = max(n₋, M), the released statistic is
/// f = U / (a·b) ∈ [0, 1]; it equals the AUC whenever both classes have at least M people.
/// Adding a positive with c ≤ n₋ negatives below it: when n₊ ≥ M, f′ − f = (a·c − U)/(a(a+1)b)
/// and |a·c − U| ≤ a·b, so |f′ − f| ≤ 1/(a+1) < 1/M; when n₊ < M, a stays M and
/// f′ − f = c/(M·b) ≤ 1/M. Negatives are symmetric, removal is addition reversed.
public enum PairwiseAUC {
    /// 2U: twice the Mann–Whitney count, an integer (a tie counts 1, a win 2). Sorts once
    /// and walks the runs of equal scores; `twiceMannWhitneyByPairs` in the tests is the
    /// straightforward twin that compares every pair.
    public static func twiceMannWhitney(positive: [Double], negative: [Double]) -> Int {
        let all = (positive.map { ($0, true) } + negative.map { ($0, false) }).sorted { $0.0 < $1.0 }
        var negativesBelow = 0, total = 0, i = 0
        while i < all.count {
            var j = i, pos = 0, neg = 0
            while j < all.count && all[j].0 == all[i].0 {
                if all[j].1 { pos += 1 } else { neg += 1 }
                j += 1
            }
            total += pos * (2 * negativesBelow + neg)
            negativesBelow += neg
            i = j
        }
        return total
    }

    /// k = round(G·U/(a·b)) in whole grid steps, computed exactly in integers:
    /// ⌊(G·2U + a·b) / (2·a·b)⌋ (halves round up). 0 when either class is empty.
    public static func grid(twiceU: Int, nPositive: Int, nNegative: Int, floor m: Int, steps g: Int) -> Int {
        precondition(m >= 1 && g >= 1 && twiceU >= 0)
        guard nPositive > 0 && nNegative > 0 else { return 0 }
        let ab = max(nPositive, m) * max(nNegative, m)
        return (g * twiceU + ab) / (2 * ab)
    }

    /// L1 sensitivity of ``grid(twiceU:nPositive:nNegative:floor:steps:)`` in grid steps:
    /// |f − f′| ≤ 1/M, so |k − k′| ≤ G/M + 1 (each rounding moves by at most ½).
    public static func sensitivity(floor m: Int, steps g: Int) -> Int {
        (g + m - 1) / m + 1
    }
}
