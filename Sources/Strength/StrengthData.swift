#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Word index

/// One list a word appears in and its rank there.
struct WordRank: Sendable, Equatable { let list: UInt8; let rank: Int32 }

/// A set of ranked word lists searchable by prefix: every distinct word once, sorted by
/// code points, each with the lists it appears in and its rank there (1 = most common).
///
/// Matching walks the password from each start position and narrows the range of words
/// sharing the prefix read so far (two binary searches per character), so a start
/// position costs only as many steps as the longest dictionary prefix found there.
struct WordIndex: Sendable, Equatable {
    /// Concatenated code points of the sorted words; word `k` is `chars[offsets[k]..<offsets[k+1]]`.
    private var chars: [UInt32] = []
    private var offsets: [Int32] = [0]
    /// Word `k`'s (list, rank) pairs, in list order, are `ranks[rankOffsets[k]..<rankOffsets[k+1]]`.
    private var ranks: [WordRank] = []
    private var rankOffsets: [Int32] = [0]

    var count: Int { rankOffsets.count - 1 }

    /// Builds the index from lists given in priority order (`lists[n]` is list number `n`).
    init(lists: [[String]]) {
        var map: [[UInt32]: [WordRank]] = [:]
        for (li, words) in lists.enumerated() {
            for (r, w) in words.enumerated() {
                let key = w.unicodeScalars.map(\.value)
                if key.isEmpty { continue }
                // A word listed twice in one list keeps its last rank (as zxcvbn's dict does).
                let entry = WordRank(list: UInt8(li), rank: Int32(r + 1))
                if let at = map[key]?.firstIndex(where: { $0.list == UInt8(li) }) { map[key]![at] = entry; continue }
                map[key, default: []].append(entry)
            }
        }
        let sorted = map.keys.sorted { $0.lexicographicallyPrecedes($1) }
        chars.reserveCapacity(sorted.reduce(0) { $0 + $1.count })
        for w in sorted { append(word: w, ranks: map[w]!) }
    }

    /// The same index as `init(lists:)` from lists given as ASCII text, one word per line
    /// (empty lines skipped; rank = position among the non-empty lines): the shipped lists.
    /// The words are sorted as byte strings, with no per-word array or dictionary (0.36 s →
    /// about 0.1 s at every start of a command that judges a password). Text that is not
    /// ASCII, or has a carriage return, goes through `init(lists:)`, whose line splitting
    /// and code-point order it then follows exactly. Twin: StrengthTests.
    static func fromASCIILines(_ texts: [[UInt8]]) -> WordIndex {
        guard texts.allSatisfy({ $0.allSatisfy { $0 < 0x80 && $0 != 0x0D } }) else {
            return WordIndex(lists: texts.map(lines))
        }
        // Every word as (start, end) in one buffer; its place in `words` is (list, rank) order.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(texts.reduce(0) { $0 + $1.count })
        var words: [(start: Int32, end: Int32, rank: WordRank)] = []
        for (li, text) in texts.enumerated() {
            var rank: Int32 = 0
            for line in text.split(separator: 0x0A, omittingEmptySubsequences: true) {
                rank += 1
                let start = Int32(bytes.count)
                bytes.append(contentsOf: line)
                words.append((start, Int32(bytes.count), WordRank(list: UInt8(li), rank: rank)))
            }
        }
        var order = Array(0..<Int32(words.count))
        bytes.withUnsafeBufferPointer { b in
            func less(_ x: Int32, _ y: Int32) -> Bool {
                let u = words[Int(x)], v = words[Int(y)]
                let lu = Int(u.end - u.start), lv = Int(v.end - v.start)
                let c = memcmp(b.baseAddress! + Int(u.start), b.baseAddress! + Int(v.start), min(lu, lv))
                if c != 0 { return c < 0 }
                return lu != lv ? lu < lv : x < y
            }
            order.sort(by: less)
        }
        var index = WordIndex()
        var k = 0
        while k < order.count {
            let first = words[Int(order[k])]
            let word = bytes[Int(first.start)..<Int(first.end)]
            var ranks: [WordRank] = []
            while k < order.count {
                let w = words[Int(order[k])]
                guard bytes[Int(w.start)..<Int(w.end)] == word else { break }
                // A word listed twice in one list keeps its last rank (as zxcvbn's dict does).
                if ranks.last?.list == w.rank.list { ranks[ranks.count - 1] = w.rank } else { ranks.append(w.rank) }
                k += 1
            }
            index.append(word: word.map(UInt32.init), ranks: ranks)
        }
        return index
    }

    private init() {}

    /// A list's words: its text split at "\n", empty lines left out.
    static func lines(_ text: [UInt8]) -> [String] {
        String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private mutating func append(word: [UInt32], ranks more: [WordRank]) {
        chars.append(contentsOf: word)
        offsets.append(Int32(chars.count))
        ranks.append(contentsOf: more)
        rankOffsets.append(Int32(ranks.count))
    }

    /// Word `k`'s (list, rank) pairs.
    private func entries(_ k: Int) -> ArraySlice<WordRank> { ranks[Int(rankOffsets[k])..<Int(rankOffsets[k + 1])] }

    private func length(_ k: Int) -> Int { Int(offsets[k + 1] - offsets[k]) }
    /// Code point `d` of word `k`, or -1 when the word is shorter.
    private func char(_ k: Int, _ d: Int) -> Int64 {
        d < length(k) ? Int64(chars[Int(offsets[k]) + d]) : -1
    }

    /// Calls `found(j, entries)` for every word equal to `text[i...j]`, in increasing `j`.
    func scan(_ text: [UInt32], from i: Int, _ found: (Int, ArraySlice<WordRank>) -> Void) {
        var lo = 0, hi = count
        var d = 0
        var j = i
        while j < text.count && lo < hi {
            let c = Int64(text[j])
            // lower bound of c at depth d within [lo, hi)
            var a = lo, b = hi
            while a < b { let m = (a + b) / 2; if char(m, d) < c { a = m + 1 } else { b = m } }
            let newLo = a
            b = hi
            while a < b { let m = (a + b) / 2; if char(m, d) <= c { a = m + 1 } else { b = m } }
            lo = newLo; hi = a
            if lo >= hi { break }
            d += 1
            if length(lo) == d { found(j, entries(lo)) }
            j += 1
        }
    }
}

// MARK: - Shipped data

/// The frequency lists and keyboard graphs shipped as resources (from zxcvbn, MIT; see
/// `Sources/Strength/Resources/README.md`), loaded once on first use.
final class StrengthData: Sendable {
    static let listNames = [
        "passwords", "english_wikipedia", "female_names", "surnames", "us_tv_and_film", "male_names"
    ]
    static let graphNames = ["qwerty", "dvorak", "keypad", "mac_keypad"]

    static let shared = StrengthData()

    let words: WordIndex
    let englishWords: [String]
    /// graph name → key → neighbours (each a string of the unshifted and shifted key, or nil).
    let graphs: [[UInt32: [[UInt32]?]]]
    let keyboardStartingPositions: Double
    let keyboardAverageDegree: Double
    let keypadStartingPositions: Double
    let keypadAverageDegree: Double

    private init() {
        let texts = Self.listNames.map { [UInt8](Self.resource("zxcvbn-\($0).txt")) }
        words = WordIndex.fromASCIILines(texts)
        englishWords = WordIndex.lines(texts[1])
        var graphs: [[UInt32: [[UInt32]?]]] = []
        let json = Self.resource("zxcvbn-adjacency.json")
        let object = (try? JSONDecoder().decode([String: [String: [String?]]].self, from: json)) ?? [:]
        for name in Self.graphNames {
            var g: [UInt32: [[UInt32]?]] = [:]
            for (key, neighbours) in object[name] ?? [:] {
                guard let k = key.unicodeScalars.first?.value else { continue }
                g[k] = neighbours.map { $0.map { $0.unicodeScalars.map(\.value) } }
            }
            graphs.append(g)
        }
        self.graphs = graphs
        func degree(_ g: [UInt32: [[UInt32]?]]) -> Double {
            guard !g.isEmpty else { return 0 }
            return Double(g.values.reduce(0) { $0 + $1.filter { $0 != nil }.count }) / Double(g.count)
        }
        keyboardStartingPositions = Double(graphs[0].count)
        keyboardAverageDegree = degree(graphs[0])
        keypadStartingPositions = Double(graphs[2].count)
        keypadAverageDegree = degree(graphs[2])
    }

    /// The shipped file `name`, compiled into the binary by the EmbedFolders plugin (so a
    /// lone copied `dossier` still has its word lists); empty if it is missing.
    static func resource(_ name: String) -> Data {
        EmbeddedStrengthFiles.files[name].flatMap { Data(base64Encoded: $0) } ?? Data()
    }
}

/// The ranked English word list shipped with the estimator (line *n* = rank *n*), for
/// callers such as the passphrase generator that draw words from it.
public enum StrengthWordList {
    public static var english: [String] { StrengthData.shared.englishWords }
}
