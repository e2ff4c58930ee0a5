#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Scoring

/// Guess estimates per match and the minimum-guesses decomposition (zxcvbn's search).
enum Scoring {
    static let bruteforceCardinality = 10.0
    static let minGuessesBeforeGrowingSequence = 10000.0
    static let minSubmatchGuessesSingleChar = 10.0
    static let minSubmatchGuessesMultiChar = 50.0
    static let minYearSpace = 20
    static let referenceYear = 2017

    struct Result {
        var guesses: Double
        var sequence: [Match]
    }

    static func nCk(_ n: Int, _ k: Int) -> Double {
        if k > n { return 0 }
        if k == 0 { return 1 }
        var r = 1.0
        var n = Double(n)
        for d in 1...k {
            r *= n
            r /= Double(d)
            n -= 1
        }
        return r
    }

    static let factorials: [Double] = (0...170).reduce(into: [Double]()) { t, k in
        t.append(k == 0 ? 1 : t[k - 1] * Double(k))
    }
    static func factorial(_ n: Int) -> Double { n <= 170 ? factorials[n] : .infinity }

    // MARK: Search

    /// The non-overlapping sequence of matches (gaps filled by brute force) minimising
    /// `l! · Π guesses + 10000^(l−1)`, by dynamic programming over prefixes.
    static func mostGuessableMatchSequence(_ pw: [UInt32], _ matches: [Match]) -> Result {
        let n = pw.count
        if n == 0 { return Result(guesses: 1, sequence: []) }
        var all = matches
        for k in all.indices { all[k].guesses = estimateGuesses(all[k], passwordLength: n) }
        var byJ = [[Int]](repeating: [], count: n)
        for (k, m) in all.enumerated() { byJ[m.j].append(k) }
        for k in 0..<n {
            byJ[k] = byJ[k].enumerated().sorted { (all[$0.element].i, $0.offset) < (all[$1.element].i, $1.offset) }.map(
                \.element)
        }

        // optimal[k]: for each sequence length l (insertion order kept), the best (g, pi, match index)
        struct Entry { var l: Int; var g: Double; var pi: Double; var m: Int }
        var optimal = [[Entry]](repeating: [], count: n)

        func update(_ mi: Int, _ l: Int) {
            let m = all[mi]
            let k = m.j
            var pi = m.guesses
            if l > 1 {
                guard let prev = optimal[m.i - 1].first(where: { $0.l == l - 1 }) else { return }
                pi *= prev.pi
            }
            var g = factorial(l) * pi
            g += pow(minGuessesBeforeGrowingSequence, Double(l - 1))
            for c in optimal[k] where c.l <= l {
                if c.g <= g { return }
            }
            let e = Entry(l: l, g: g, pi: pi, m: mi)
            if let at = optimal[k].firstIndex(where: { $0.l == l }) { optimal[k][at] = e } else { optimal[k].append(e) }
        }

        func bruteforce(_ i: Int, _ j: Int) -> Int {
            var m = Match(.bruteforce, i: i, j: j, token: [])
            m.guesses = estimateGuesses(m, passwordLength: n)
            all.append(m)
            return all.count - 1
        }

        for k in 0..<n {
            for mi in byJ[k] {
                let m = all[mi]
                if m.i > 0 {
                    for e in optimal[m.i - 1] { update(mi, e.l + 1) }
                } else {
                    update(mi, 1)
                }
            }
            // brute force from the start, or after any sequence not ending in brute force
            update(bruteforce(0, k), 1)
            for i in 1...max(1, k) where i <= k {
                let bi = bruteforce(i, k)
                for e in optimal[i - 1] where all[e.m].pattern != .bruteforce {
                    update(bi, e.l + 1)
                }
            }
        }

        // unwind
        var best: Entry? = nil
        for e in optimal[n - 1] where best == nil || e.g < best!.g { best = e }
        var seq: [Match] = []
        var k = n - 1
        var l = best!.l
        while k >= 0 {
            let e = optimal[k].first { $0.l == l }!
            let m = all[e.m]
            seq.insert(m, at: 0)
            k = m.i - 1
            l -= 1
        }
        return Result(guesses: best!.g, sequence: seq)
    }

    // MARK: Per-match guesses

    static func estimateGuesses(_ m: Match, passwordLength: Int) -> Double {
        var minGuesses = 1.0
        if m.length < passwordLength {
            minGuesses = m.length == 1 ? minSubmatchGuessesSingleChar : minSubmatchGuessesMultiChar
        }
        let g: Double
        switch m.pattern {
        case .bruteforce: g = bruteforceGuesses(m)
        case .dictionary: g = dictionaryGuesses(m)
        case .spatial: g = spatialGuesses(m)
        case .repeat: g = m.baseGuesses * m.repeatCount
        case .sequence: g = sequenceGuesses(m)
        case .regex:
            g = Double(max(abs(Int(m.token.reduce(0) { $0 * 10 + Int($1 - 48) }) - referenceYear), minYearSpace))
        case .date:
            var d = Double(max(abs(m.year - referenceYear), minYearSpace)) * 365
            if m.separator != nil { d *= 4 }
            g = d
        }
        return max(g, minGuesses)
    }

    static func bruteforceGuesses(_ m: Match) -> Double {
        let g = pow(bruteforceCardinality, Double(m.length))
        let minimum = m.length == 1 ? minSubmatchGuessesSingleChar + 1 : minSubmatchGuessesMultiChar + 1
        return max(g, minimum)
    }

    static func dictionaryGuesses(_ m: Match) -> Double {
        Double(m.rank) * uppercaseVariations(m.token) * l33tVariations(m) * (m.reversed ? 2 : 1)
    }

    static func uppercaseVariations(_ w: [UInt32]) -> Double {
        let lowered = w.map(CP.lower)
        if !w.contains(where: CP.isUpperASCII) || lowered == w { return 1 }
        let nonUpper = { (c: UInt32) in !CP.isUpperASCII(c) }
        // first letter only, last letter only, or no lower-case at all
        if w.count >= 2 && CP.isUpperASCII(w[0]) && w.dropFirst().allSatisfy(nonUpper) { return 2 }
        if w.count >= 2 && CP.isUpperASCII(w[w.count - 1]) && w.dropLast().allSatisfy(nonUpper) { return 2 }
        if !w.contains(where: CP.isLowerASCII) { return 2 }
        let u = w.filter(CP.isUpper).count
        let l = w.filter(CP.isLower).count
        var v = 0.0
        if min(u, l) >= 1 { for i in 1...min(u, l) { v += nCk(u + l, i) } }
        return v
    }

    /// The ways to spread `a` characters of one kind (substituted, shifted) and `b` of the
    /// other over a token: Σ C(a + b, i) for i = 1 … min(a, b), or 2 when either is 0.
    static func twoKindVariations(_ a: Int, _ b: Int) -> Double {
        guard a > 0, b > 0 else { return 2 }
        var v = 0.0
        for i in 1...min(a, b) { v += nCk(a + b, i) }
        return v
    }

    static func l33tVariations(_ m: Match) -> Double {
        guard m.l33t else { return 1 }
        var variations = 1.0
        let chars = m.token.map(CP.lower)
        for (subbed, unsubbed) in m.sub {
            variations *= twoKindVariations(chars.filter { $0 == subbed }.count, chars.filter { $0 == unsubbed }.count)
        }
        return variations
    }

    static func sequenceGuesses(_ m: Match) -> Double {
        let first = m.token.first ?? 0
        var base: Double
        if "aAzZ019".unicodeScalars.contains(where: { $0.value == first }) {
            base = 4
        } else if CP.isDigit(first) {
            base = 10
        } else {
            base = 26
        }
        if !m.ascending { base *= 2 }
        return base * Double(m.length)
    }

    static func spatialGuesses(_ m: Match) -> Double {
        let data = StrengthData.shared
        let keyboard = m.graph == "qwerty" || m.graph == "dvorak"
        let s = keyboard ? data.keyboardStartingPositions : data.keypadStartingPositions
        let d = keyboard ? data.keyboardAverageDegree : data.keypadAverageDegree
        var guesses = 0.0
        let len = m.length
        let t = m.turns
        if len >= 2 {
            for i in 2...len {
                let possibleTurns = min(t, i - 1) + 1
                if possibleTurns > 1 {
                    for j in 1..<possibleTurns { guesses += nCk(i - 1, j - 1) * s * pow(d, Double(j)) }
                }
            }
        }
        if m.shiftedCount > 0 {
            guesses *= twoKindVariations(m.shiftedCount, len - m.shiftedCount)
        }
        return guesses
    }
}
