// Date matching for the strength estimate: digit runs and separated dates read as day, month and year
// (docs/vault-strength.md).

#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

extension Matcher {
    // MARK: Date

    static let referenceYear = 2017
    static let dateSplits: [Int: [(Int, Int)]] = [
        4: [(1, 2), (2, 3)],
        5: [(1, 3), (2, 3)],
        6: [(1, 2), (2, 4), (4, 5)],
        7: [(1, 3), (2, 3), (4, 5), (4, 6)],
        8: [(2, 4), (4, 6)],
    ]

    private static func number(_ cs: ArraySlice<UInt32>) -> Int {
        cs.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    func dateMatch(_ pw: [UInt32]) -> [Match] {
        var ms: [Match] = []
        let n = pw.count
        if n >= 4 {
            for i in 0..<(n - 3) {
                for j in (i + 3)..<(i + 8) {
                    if j >= n { break }
                    let token = Array(pw[i...j])
                    guard token.allSatisfy(CP.isDigit) else { continue }
                    var best: (year: Int, month: Int, day: Int)? = nil
                    var bestDistance = Int.max
                    for (k, l) in Self.dateSplits[token.count]! {
                        let ints = [Self.number(token[0..<k]), Self.number(token[k..<l]), Self.number(token[l...])]
                        if let dmy = Self.mapIntsToDMY(ints) {
                            let dist = abs(dmy.year - Self.referenceYear)
                            if best == nil || dist < bestDistance { best = dmy; bestDistance = dist }
                        }
                    }
                    guard let b = best else { continue }
                    var m = Match(.date, i: i, j: j, token: token)
                    m.year = b.year; m.month = b.month; m.day = b.day
                    ms.append(m)
                }
            }
        }
        if n >= 6 {
            for i in 0..<(n - 5) {
                for j in (i + 5)..<(i + 10) {
                    if j >= n { break }
                    let token = Array(pw[i...j])
                    guard let (ints, sep) = Self.separatedDate(token), let dmy = Self.mapIntsToDMY(ints) else {
                        continue
                    }
                    var m = Match(.date, i: i, j: j, token: token)
                    m.separator = sep
                    m.year = dmy.year; m.month = dmy.month; m.day = dmy.day
                    ms.append(m)
                }
            }
        }
        // drop dates that lie inside another date match
        let kept = ms.enumerated().filter { a in
            !ms.enumerated().contains { b in
                b.offset != a.offset && b.element.i <= a.element.i && b.element.j >= a.element.j
            }
        }.map(\.element)
        return sortedByPosition(kept)
    }

    /// `d{1,4} sep d{1,2} sep d{1,4}` with the same separator (space, / \ _ . -) twice.
    static func separatedDate(_ t: [UInt32]) -> ([Int], UInt32)? {
        var p = 0
        func digits(max: Int) -> Int? {
            let s = p
            while p < t.count && CP.isDigit(t[p]) { p += 1 }
            let len = p - s
            return len >= 1 && len <= max ? number(t[s..<p]) : nil
        }
        guard let a = digits(max: 4), p < t.count else { return nil }
        let sep = t[p]
        guard CP.isSpace(sep) || "/\\_.-".unicodeScalars.contains(where: { $0.value == sep }) else { return nil }
        p += 1
        guard let b = digits(max: 2), p < t.count, t[p] == sep else { return nil }
        p += 1
        guard let c = digits(max: 4), p == t.count else { return nil }
        return ([a, b, c], sep)
    }

    static func mapIntsToDMY(_ ints: [Int]) -> (year: Int, month: Int, day: Int)? {
        if ints[1] > 31 || ints[1] <= 0 { return nil }
        var over12 = 0, over31 = 0, under1 = 0
        for v in ints {
            if (v > 99 && v < 1000) || v > 2050 { return nil }
            if v > 31 { over31 += 1 }
            if v > 12 { over12 += 1 }
            if v <= 0 { under1 += 1 }
        }
        if over31 >= 2 || over12 == 3 || under1 >= 2 { return nil }
        let splits: [(Int, [Int])] = [(ints[2], [ints[0], ints[1]]), (ints[0], [ints[1], ints[2]])]
        for (y, rest) in splits where y >= 1000 && y <= 2050 {
            guard let dm = mapIntsToDM(rest) else { return nil }
            return (y, dm.month, dm.day)
        }
        for (y, rest) in splits {
            if let dm = mapIntsToDM(rest) {
                let year = y > 99 ? y : (y > 50 ? y + 1900 : y + 2000)
                return (year, dm.month, dm.day)
            }
        }
        return nil
    }

    static func mapIntsToDM(_ ints: [Int]) -> (day: Int, month: Int)? {
        for (d, m) in [(ints[0], ints[1]), (ints[1], ints[0])] where d >= 1 && d <= 31 && m >= 1 && m <= 12 {
            return (d, m)
        }
        return nil
    }
}
