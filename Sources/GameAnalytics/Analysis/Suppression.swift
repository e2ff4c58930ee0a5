#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Small-cell suppression (docs/game-measures.md, "Publishing counts")

/// Primary and complementary suppression of counts that are published together.
///
/// Every count is an entry; every *equation* says that some entries add up to another
/// (a row of a table and its total). Entries below ``threshold`` (0 included) are
/// suppressed (*primary*, shown as "<5"). Then, until nothing changes, each equation is
/// checked: when its suppressed entries could be worked out from the published ones —
/// exactly one suppressed entry, an entry fixed by the ranges a reader knows (primary
/// 0…4, complementary ≥ 5), or a suppressed entry that is a linear combination of the
/// equations over the suppressed entries — the smallest published entry of that equation
/// is suppressed too (*complementary*, shown as "suppressed").
public enum Suppression {
    public static let threshold = 5

    public enum Status: String, Sendable, Hashable, Codable { case shown, primary, complementary }

    /// One equation: `parts` add up to `total` (indices into the values).
    public struct Equation: Sendable, Hashable {
        public var parts: [Int]
        public var total: Int
        public init(parts: [Int], total: Int) { self.parts = parts; self.total = total }
        var all: [Int] { parts + [total] }
    }

    /// The status of every value.
    public static func apply(values: [Int], equations: [Equation]) -> [Status] {
        var st: [Status] = values.map { $0 < threshold ? .primary : .shown }
        while true {
            var changed = false
            for e in equations where leaks(e, values: values, status: st) {
                if let pick = e.all.filter({ st[$0] == .shown }).min(by: { (values[$0], $0) < (values[$1], $1) }) {
                    st[pick] = .complementary; changed = true
                }
            }
            if !changed, let i = determinedEntry(values: values, status: st, equations: equations) {
                // Suppress the smallest published entry of an equation holding the determined entry.
                let candidates = equations.filter { $0.all.contains(i) }.flatMap(\.all).filter { st[$0] == .shown }
                if let pick = candidates.min(by: { (values[$0], $0) < (values[$1], $1) }) {
                    st[pick] = .complementary; changed = true
                }
            }
            if !changed { return st }
        }
    }

    /// Whether one equation on its own pins a suppressed entry.
    static func leaks(_ e: Equation, values: [Int], status st: [Status]) -> Bool {
        let hidden = e.all.filter { st[$0] != .shown }
        if hidden.isEmpty { return false }
        if hidden.count == 1 { return true }
        // Ranges a reader knows: primary 0…4, complementary 5…(grand total).
        let cap = values.max() ?? 0
        func range(_ i: Int) -> (Int, Int) { st[i] == .primary ? (0, threshold - 1) : (threshold, max(threshold, cap)) }
        // sum(parts) − total = 0  ⇒  each hidden entry's range from the others'.
        var known = 0
        for i in e.parts where st[i] == .shown { known += values[i] }
        if st[e.total] == .shown { known -= values[e.total] }
        for i in hidden {
            var lo = 0, hi = 0   // range of (sum of the other hidden parts − hidden total)
            for j in hidden where j != i {
                let (a, b) = range(j)
                if j == e.total { lo -= b; hi -= a } else { lo += a; hi += b }
            }
            // parts: x = −known − others ; total: x = known + others
            let (xlo, xhi) = i == e.total ? (known + lo, known + hi) : (-known - hi, -known - lo)
            let (a, b) = range(i)
            if max(a, xlo) >= min(b, xhi) { return true }
        }
        return false
    }

    /// A suppressed entry that the equations determine exactly (it is in the row space of
    /// the equations restricted to the suppressed entries), or nil.
    static func determinedEntry(values: [Int], status st: [Status], equations: [Equation]) -> Int? {
        let hidden = values.indices.filter { st[$0] != .shown }
        guard !hidden.isEmpty else { return nil }
        let col = Dictionary(uniqueKeysWithValues: hidden.enumerated().map { ($1, $0) })
        var rows: [[Double]] = []
        for e in equations {
            var r = [Double](repeating: 0, count: hidden.count)
            for p in e.parts { if let c = col[p] { r[c] += 1 } }
            if let c = col[e.total] { r[c] -= 1 }
            if r.contains(where: { $0 != 0 }) { rows.append(r) }
        }
        let base = rank(rows)
        for (c, i) in hidden.enumerated() {
            var unit = [Double](repeating: 0, count: hidden.count)
            unit[c] = 1
            if rank(rows + [unit]) == base { return i }
        }
        return nil
    }

    /// Rank by Gaussian elimination with partial pivoting (entries are small integers).
    static func rank(_ m: [[Double]]) -> Int {
        var a = m
        guard let w = a.first?.count else { return 0 }
        var r = 0
        for c in 0..<w where r < a.count {
            guard let p = (r..<a.count).max(by: { abs(a[$0][c]) < abs(a[$1][c]) }), abs(a[p][c]) > 1e-9 else {
                continue
            }
            a.swapAt(r, p)
            for i in 0..<a.count where i != r {
                let f = a[i][c] / a[r][c]
                if f != 0 { for j in c..<w { a[i][j] -= f * a[r][j] } }
            }
            r += 1
        }
        return r
    }

    /// How a count is published: the number, "<5" or "suppressed".
    public static func text(_ value: Int, _ status: Status) -> String {
        switch status {
        case .shown: return String(value)
        case .primary: return "<\(threshold)"
        case .complementary: return "suppressed"
        }
    }
}
