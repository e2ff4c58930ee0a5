#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Word index

/// One list a word appears in and its rank there.
struct WordRank: Sendable { let list: UInt8; let rank: Int32 }

/// A set of ranked word lists searchable by prefix: every distinct word once, sorted by
/// code points, each with the lists it appears in and its rank there (1 = most common).
///
/// Matching walks the password from each start position and narrows the range of words
/// sharing the prefix read so far (two binary searches per character), so a start
/// position costs only as many steps as the longest dictionary prefix found there.
struct WordIndex: Sendable {
    /// Concatenated code points of the sorted words; word `k` is `chars[offsets[k]..<offsets[k+1]]`.
    private var chars: [UInt32] = []
    private var offsets: [Int32] = [0]
    /// For word `k`, its (list, rank) pairs in list order.
    private var entries: [[WordRank]] = []

    var count: Int { entries.count }

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
        for w in sorted {
            chars.append(contentsOf: w)
            offsets.append(Int32(chars.count))
            entries.append(map[w]!)
        }
    }

    private func length(_ k: Int) -> Int { Int(offsets[k + 1] - offsets[k]) }
    /// Code point `d` of word `k`, or -1 when the word is shorter.
    private func char(_ k: Int, _ d: Int) -> Int64 {
        d < length(k) ? Int64(chars[Int(offsets[k]) + d]) : -1
    }

    /// Calls `found(j, entries)` for every word equal to `text[i...j]`, in increasing `j`.
    func scan(_ text: [UInt32], from i: Int, _ found: (Int, [WordRank]) -> Void) {
        var lo = 0, hi = entries.count
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
            if length(lo) == d { found(j, entries[lo]) }
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
        var lists: [[String]] = []
        for name in Self.listNames {
            let text = String(decoding: Self.resource("zxcvbn-\(name).txt"), as: UTF8.self)
            lists.append(text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init))
        }
        words = WordIndex(lists: lists)
        englishWords = lists[1]
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
