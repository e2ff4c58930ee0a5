#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Matching (dates: MatchingDates.swift)

/// Finds every pattern in a password: the candidates for the minimum-guesses search.
/// The rules follow zxcvbn (Wheeler, USENIX Security 2016); see docs/vault-strength.md.
struct Matcher: Sendable {
    let data: StrengthData
    /// The entry's own words (title, username, website parts), lower-cased, rank = position.
    let userInputs: WordIndex

    static let listOrder = StrengthData.listNames + ["user_inputs"]

    init(data: StrengthData = .shared, userInputs: [String]) {
        self.data = data
        self.userInputs = WordIndex(lists: [userInputs.map { $0.lowercased() }])
    }

    /// All matchers, sorted by position (stable: matcher order breaks ties).
    func omnimatch(_ pw: [UInt32]) -> [Match] {
        var ms: [Match] = []
        ms += dictionaryMatch(pw)
        ms += reverseDictionaryMatch(pw)
        ms += l33tMatch(pw)
        ms += spatialMatch(pw)
        ms += repeatMatch(pw)
        ms += sequenceMatch(pw)
        ms += regexMatch(pw)
        ms += dateMatch(pw)
        return sortedByPosition(ms)
    }

    // MARK: Dictionary

    func dictionaryMatch(_ pw: [UInt32]) -> [Match] {
        let lower = pw.map(CP.lower)
        var out: [(list: Int, m: Match)] = []
        func add(_ i: Int, _ j: Int, _ entries: ArraySlice<WordRank>, listOffset: Int) {
            for e in entries {
                var m = Match(.dictionary, i: i, j: j, token: Array(pw[i...j]))
                m.matchedWord = Array(lower[i...j])
                m.rank = Int(e.rank)
                m.dictionaryName = Self.listOrder[Int(e.list) + listOffset]
                out.append((Int(e.list) + listOffset, m))
            }
        }
        for i in 0..<pw.count {
            data.words.scan(lower, from: i) { j, e in add(i, j, e, listOffset: 0) }
            if userInputs.count > 0 {
                userInputs.scan(lower, from: i) { j, e in add(i, j, e, listOffset: StrengthData.listNames.count) }
            }
        }
        // zxcvbn scans list by list, then sorts by (i, j): list order breaks ties.
        return out.enumerated().sorted { a, b in
            let x = a.element, y = b.element
            if x.m.i != y.m.i { return x.m.i < y.m.i }
            if x.m.j != y.m.j { return x.m.j < y.m.j }
            if x.list != y.list { return x.list < y.list }
            return a.offset < b.offset
        }.map(\.element.m)
    }

    func reverseDictionaryMatch(_ pw: [UInt32]) -> [Match] {
        let n = pw.count
        let ms = dictionaryMatch(pw.reversed()).map { m -> Match in
            var r = m
            r.token = m.token.reversed()
            r.reversed = true
            r.i = n - 1 - m.j
            r.j = n - 1 - m.i
            return r
        }
        return sortedByPosition(ms)
    }

    // MARK: l33t

    static let l33tTable: [(UInt32, [UInt32])] = [
        ("a", "4@"), ("b", "8"), ("c", "({[<"), ("e", "3"), ("g", "69"), ("i", "1!|"),
        ("l", "1|7"), ("o", "0"), ("s", "$5"), ("t", "+7"), ("x", "%"), ("z", "2"),
    ].map { (Unicode.Scalar($0.0)!.value, $0.1.unicodeScalars.map(\.value)) }

    /// The table restricted to l33t characters present in the password.
    static func relevantSubtable(_ pw: [UInt32]) -> [(UInt32, [UInt32])] {
        let present = Set(pw)
        return l33tTable.compactMap { letter, subs in
            let r = subs.filter { present.contains($0) }
            return r.isEmpty ? nil : (letter, r)
        }
    }

    /// Every way to read the l33t characters: each a list of (l33t char, letter), where a
    /// letter takes at most one l33t character and a l33t character one letter.
    static func enumerateSubs(_ table: [(UInt32, [UInt32])]) -> [[(UInt32, UInt32)]] {
        var subs: [[(UInt32, UInt32)]] = [[]]
        for (letter, l33ts) in table {
            var next: [[(UInt32, UInt32)]] = []
            for c in l33ts {
                for sub in subs {
                    if let dup = sub.firstIndex(where: { $0.0 == c }) {
                        var alt = sub
                        alt.remove(at: dup)
                        alt.append((c, letter))
                        next.append(sub)
                        next.append(alt)
                    } else {
                        next.append(sub + [(c, letter)])
                    }
                }
            }
            // de-duplicate by the sorted (letter, l33t) pairs, keeping the first.
            var seen = Set<[UInt64]>()
            subs = next.filter { sub in
                let label = sub.map { UInt64($0.1) << 32 | UInt64($0.0) }.sorted()
                return seen.insert(label).inserted
            }
        }
        return subs
    }

    func l33tMatch(_ pw: [UInt32]) -> [Match] {
        var out: [Match] = []
        for sub in Self.enumerateSubs(Self.relevantSubtable(pw)) {
            if sub.isEmpty { break }
            var map: [UInt32: UInt32] = [:]
            for (c, l) in sub { map[c] = l }
            let subbed = pw.map { map[$0] ?? $0 }
            for var m in dictionaryMatch(subbed) {
                let token = Array(pw[m.i...m.j])
                // only matches with an actual substitution
                guard token.contains(where: { map[$0] != nil }) else { continue }
                let used = sub.filter { token.contains($0.0) }
                m.l33t = true
                m.token = token
                m.sub = used
                out.append(m)
            }
        }
        return sortedByPosition(out.filter { $0.token.count > 1 })
    }

    // MARK: Spatial

    static let shifted: Set<UInt32> = Set(
        "~!@#$%^&*()_+QWERTYUIOP{}|ASDFGHJKL:\"ZXCVBNM<>?".unicodeScalars.map(\.value))

    func spatialMatch(_ pw: [UInt32]) -> [Match] {
        var out: [Match] = []
        for (gi, name) in StrengthData.graphNames.enumerated() {
            out += spatialHelper(pw, graph: data.graphs[gi], name: name)
        }
        return sortedByPosition(out)
    }

    private func spatialHelper(_ pw: [UInt32], graph: [UInt32: [[UInt32]?]], name: String) -> [Match] {
        var out: [Match] = []
        let keyboard = name == "qwerty" || name == "dvorak"
        var i = 0
        while i < pw.count - 1 {
            var j = i + 1
            var lastDirection = -1
            var turns = 0
            var shiftedCount = keyboard && Self.shifted.contains(pw[i]) ? 1 : 0
            while true {
                let adjacents = graph[pw[j - 1]] ?? []
                var found = false
                if j < pw.count {
                    let cur = pw[j]
                    for (dir, adj) in adjacents.enumerated() {
                        guard let adj, let at = adj.firstIndex(of: cur) else { continue }
                        found = true
                        if at == 1 { shiftedCount += 1 }
                        if lastDirection != dir {
                            turns += 1
                            lastDirection = dir
                        }
                        break
                    }
                }
                if found {
                    j += 1
                } else {
                    if j - i > 2 {
                        var m = Match(.spatial, i: i, j: j - 1, token: Array(pw[i..<j]))
                        m.graph = name
                        m.turns = turns
                        m.shiftedCount = shiftedCount
                        out.append(m)
                    }
                    i = j
                    break
                }
            }
        }
        return out
    }

    // MARK: Repeat

    /// Number of further copies of `pw[s..<s+len]` that follow it directly.
    private static func copies(_ pw: [UInt32], _ s: Int, _ len: Int) -> Int {
        var r = 0
        var p = s + len
        while p + len <= pw.count {
            var same = true
            for k in 0..<len where pw[p + k] != pw[s + k] { same = false; break }
            if !same { break }
            r += 1
            p += len
        }
        return r
    }

    func repeatMatch(_ pw: [UInt32]) -> [Match] {
        var out: [Match] = []
        var last = 0
        let n = pw.count
        while last < n {
            // leftmost start with any repeat; greedy = longest unit, lazy = shortest unit
            var found: (s: Int, greedy: (Int, Int), lazy: (Int, Int))? = nil
            var s = last
            while s < n && found == nil {
                var greedy: (Int, Int)? = nil
                var lazy: (Int, Int)? = nil
                let maxLen = (n - s) / 2
                if maxLen >= 1 {
                    for len in stride(from: maxLen, through: 1, by: -1) {
                        let r = Self.copies(pw, s, len)
                        if r >= 1 { greedy = (len, r); break }
                    }
                    if greedy != nil {
                        for len in 1...maxLen {
                            let r = Self.copies(pw, s, len)
                            if r >= 1 { lazy = (len, r); break }
                        }
                    }
                }
                if let greedy, let lazy { found = (s, greedy, lazy) }
                s += 1
            }
            guard let f = found else { break }
            let greedyLength = f.greedy.0 * (f.greedy.1 + 1)
            let lazyLength = f.lazy.0 * (f.lazy.1 + 1)
            let total: Int
            let base: [UInt32]
            if greedyLength > lazyLength {
                total = greedyLength
                let whole = Array(pw[f.s..<(f.s + total)])
                // shortest unit the greedy match is made of
                var unit = whole.count
                for len in 1...whole.count where whole.count % len == 0 {
                    if Self.copies(whole, 0, len) == whole.count / len - 1 { unit = len; break }
                }
                base = Array(whole[0..<unit])
            } else {
                total = lazyLength
                base = Array(pw[f.s..<(f.s + f.lazy.0)])
            }
            let i = f.s, j = f.s + total - 1
            let analysis = Scoring.mostGuessableMatchSequence(base, omnimatch(base))
            var m = Match(.repeat, i: i, j: j, token: Array(pw[i...j]))
            m.baseToken = base
            m.baseGuesses = analysis.guesses
            m.repeatCount = Double(total) / Double(base.count)
            out.append(m)
            last = j + 1
        }
        return out
    }

    // MARK: Sequence

    func sequenceMatch(_ pw: [UInt32]) -> [Match] {
        guard pw.count > 1 else { return [] }
        var out: [Match] = []
        func update(_ i: Int, _ j: Int, _ delta: Int) {
            guard j - i > 1 || abs(delta) == 1 else { return }
            guard abs(delta) > 0 && abs(delta) <= 5 else { return }
            let token = Array(pw[i...j])
            var m = Match(.sequence, i: i, j: j, token: token)
            if token.allSatisfy(CP.isLowerASCII) { m.sequenceName = "lower" }
            else if token.allSatisfy(CP.isUpperASCII) { m.sequenceName = "upper" }
            else if token.allSatisfy(CP.isDigit) { m.sequenceName = "digits" }
            else { m.sequenceName = "unicode" }
            m.ascending = delta > 0
            out.append(m)
        }
        var i = 0
        var lastDelta: Int? = nil
        for k in 1..<pw.count {
            let delta = Int(pw[k]) - Int(pw[k - 1])
            if lastDelta == nil { lastDelta = delta }
            if delta == lastDelta { continue }
            let j = k - 1
            update(i, j, lastDelta!)
            i = j
            lastDelta = delta
        }
        update(i, pw.count - 1, lastDelta!)
        return out
    }

    // MARK: Regex (recent years)

    func regexMatch(_ pw: [UInt32]) -> [Match] {
        var out: [Match] = []
        var p = 0
        let d = CP.isDigit
        while p + 4 <= pw.count {
            let a = pw[p], b = pw[p + 1], c = pw[p + 2], e = pw[p + 3]
            let year = (a == 49 && b == 57 && d(c) && d(e)) || (a == 50 && b == 48 && (c == 48 || c == 49) && d(e))
            if year {
                var m = Match(.regex, i: p, j: p + 3, token: Array(pw[p..<(p + 4)]))
                m.regexName = "recent_year"
                out.append(m)
                p += 4
            } else {
                p += 1
            }
        }
        return out
    }
}
