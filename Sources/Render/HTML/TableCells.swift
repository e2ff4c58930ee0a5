#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// The per-cell work of ``TableMarkup``. A participant page of a study has about 1,500
// table cells and every rule used to trim and re-read each cell's text (four to five
// trims, a `lowercased()`, a Character-wise `hasSuffix`): about a fifth of a study
// build (docs/perf-study.md, round four). The rules are unchanged; each cell is read
// once into ``TableMarkup/CellFacts``.
extension TableMarkup {
    /// What the column rules read from one cell: its trimmed text and what that text is.
    struct CellFacts: Equatable {
        var trimmed: String
        /// `""`, `—`, `–` or `-` (``isEmptyValue(_:)``).
        var isEmpty: Bool
        /// The value of a `<number> s` cell (``seconds(_:)``).
        var seconds: Double?
        /// Decimals of a number cell (``numberDecimals(_:)``).
        var decimals: Int?
        /// `yes`/`no` for a cell reading `true`/`false` in any case.
        var word: String?

        /// The facts through the general rules (the reference the fast path is tested against).
        init(reading text: String) {
            trimmed = TableMarkup.trimmed(text)
            isEmpty = TableMarkup.isEmptyValue(trimmed)
            seconds = TableMarkup.seconds(trimmed)
            decimals = TableMarkup.numberDecimals(trimmed)
            switch trimmed.lowercased() {
            case "true": word = "yes"
            case "false": word = "no"
            default: word = nil
            }
        }

        /// The same facts; ASCII text (nearly every cell) is read over its bytes, where a
        /// byte is a Character and the only white space is TAB–CR and space.
        init(_ text: String) {
            var text = text
            if let facts = text.withUTF8({ b in b.allSatisfy { $0 < 0x80 } ? CellFacts(ascii: b) : nil }) {
                self = facts
            } else {
                self = CellFacts(reading: text)
            }
        }

        private init(ascii b: UnsafeBufferPointer<UInt8>) {
            func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0D) }
            var lo = 0, hi = b.count
            while lo < hi, isSpace(b[lo]) { lo += 1 }
            while hi > lo, isSpace(b[hi - 1]) { hi -= 1 }
            // CR LF is one Character: trimming "\r\n" by bytes is trimming it by Characters.
            let t = UnsafeBufferPointer(rebasing: b[lo..<hi])
            trimmed = lo == 0 && hi == b.count ? String(decoding: b, as: UTF8.self) : String(decoding: t, as: UTF8.self)
            isEmpty = t.isEmpty || (t.count == 1 && t[0] == 0x2D)
            seconds = t.count >= 2 && t[t.count - 2] == 0x20 && t[t.count - 1] == 0x73
                ? Double(String(decoding: UnsafeBufferPointer(rebasing: t[..<(t.count - 2)]), as: UTF8.self)) : nil
            decimals = TableMarkup.asciiNumberDecimals(t)
            word = Self.asciiWord(t)
        }

        /// `yes` for `true`, `no` for `false` (ASCII, any case).
        private static func asciiWord(_ t: UnsafeBufferPointer<UInt8>) -> String? {
            func reads(_ w: StaticString) -> Bool {
                guard t.count == w.utf8CodeUnitCount else { return false }
                for k in 0..<t.count where t[k] | 0x20 != w.utf8Start[k] { return false }
                return true
            }
            if reads("true") { return "yes" }
            if reads("false") { return "no" }
            return nil
        }
    }

    /// The new text of a body cell, or nil to keep it.
    static func replacementText(_ f: CellFacts, padTo decimals: Int?, durations: Bool = false) -> String? {
        if let word = f.word { return word }
        if durations, let v = f.seconds {
            return ValueFormat.duration(v)
        }
        if let want = decimals, want > 0, let have = f.decimals, have < want {
            return padded(f.trimmed, from: have, to: want)
        }
        return nil
    }

    /// A trimmed number cell of `have` decimals (``numberDecimals(_:)``) with its number
    /// part (before any unit suffix) padded with zeros to `want` > `have` decimals.
    static func padded(_ number: String, from have: Int, to want: Int) -> String {
        var num = number
        var suffix = ""
        for unit in [" %", "%", " s"] where num.hasSuffix(unit) {
            num = String(num.dropLast(unit.count)); suffix = unit; break
        }
        if have == 0 { num += "." }
        return num + String(repeating: "0", count: want - have) + suffix
    }

    static func replacementText(_ s: String, padTo decimals: Int?, durations: Bool = false) -> String? {
        replacementText(CellFacts(reading: s), padTo: decimals, durations: durations)
    }

    /// The text of a cell's content as the rules read it: tags stripped, entities decoded.
    /// Content without `<`, `>` or `&` is its own text (no copies through the general path).
    static func cellText(_ content: ArraySlice<UInt8>) -> String {
        if !content.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 }) {
            return String(decoding: content, as: UTF8.self)
        }
        return decodeEntities(stripTags(Array(content)))
    }

    /// ``withClasses(_:_:_:_:)`` for a bare `<td>` or `<th>` (every generated cell),
    /// written directly; nil for any other tag.
    static func bareCellTag(_ t: [UInt8], _ s: Int, _ e: Int, _ classes: [String]) -> [UInt8]? {
        guard e - s == 4, t[s] == 0x3C, t[s + 1] == 0x74, t[s + 2] == 0x64 || t[s + 2] == 0x68, t[s + 3] == 0x3E else {
            return nil
        }
        return Array("<t\(t[s + 2] == 0x64 ? "d" : "h") class=\"\(classes.joined(separator: " "))\">".utf8)
    }

    /// The tag `t[s..<e]` with `classes` added, as bytes: ``bareCellTag(_:_:_:_:)``,
    /// else ``withClassesASCII(_:_:_:_:)``, else ``withClasses(_:_:_:_:)`` (the walk over
    /// Characters, for a tag with non-ASCII bytes).
    static func tagWithClasses(_ t: [UInt8], _ s: Int, _ e: Int, _ classes: [String]) -> [UInt8] {
        bareCellTag(t, s, e, classes) ?? withClassesASCII(t, s, e, classes) ?? Array(withClasses(t, s, e, classes).utf8)
    }

    static let classAttribute: [UInt8] = Array("class=\"".utf8)

    /// Appends ``tagWithClasses(_:_:_:_:)`` of `t[s..<e]` to `out`, where `joined` is
    /// `classes` joined by spaces: an ASCII tag without a class attribute (every cell
    /// cmark writes: `<td>`, `<td align="right">`) gets ` class="…"` after its name
    /// written straight into `out`, with no array per tag; any other tag takes
    /// ``tagWithClasses(_:_:_:_:)`` (`TableMarkupTests` compares the two).
    static func appendTag(_ t: [UInt8], _ s: Int, _ e: Int, _ classes: [String], joined: [UInt8],
                          to out: inout [UInt8]) {
        var sink = ArraySink(capacity: 0)
        swap(&sink.bytes, &out)
        t.withUnsafeBufferPointer { t in
            joined.withUnsafeBufferPointer { joined in putTag(t, s, e, joined, classes, into: &sink) }
        }
        swap(&sink.bytes, &out)
    }

    /// ``withClasses(_:_:_:_:)`` over the bytes of an all-ASCII tag (nil for any other),
    /// where each byte is one Character but for `\r\n`, which none of the bytes looked
    /// for (`"`, space, `>`, `/`) is part of: the same bytes, without a String, a
    /// Character walk and a class list per tag (`<td align="right">`, every cell of a
    /// right-aligned Markdown column; `TableMarkupTests` compares the two).
    static func withClassesASCII(_ t: [UInt8], _ s: Int, _ e: Int, _ classes: [String]) -> [UInt8]? {
        for k in s..<e where t[k] >= 0x80 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(e - s + 40)
        let attr = classAttribute
        var at: Int? = nil
        var k = s
        while k + attr.count <= e {
            if t[k] == 0x63, t[k..<(k + attr.count)].elementsEqual(attr) { at = k; break }
            k += 1
        }
        if let at {
            let value = at + attr.count
            var close = value
            while close < e && t[close] != 0x22 { close += 1 }
            let existing = t[value..<close].split(separator: 0x20)
            let add = classes.filter { c in !existing.contains { $0.elementsEqual(c.utf8) } }
            out.append(contentsOf: t[s..<value])
            if !add.isEmpty { out.append(contentsOf: (add.joined(separator: " ") + " ").utf8) }
            out.append(contentsOf: t[value..<e])
        } else {
            var nameEnd = s + 1
            while nameEnd < e && t[nameEnd] != 0x20 && t[nameEnd] != 0x3E && t[nameEnd] != 0x2F { nameEnd += 1 }
            if s == e { nameEnd = e }
            out.append(contentsOf: t[s..<nameEnd])
            out.append(contentsOf: " class=\"\(classes.joined(separator: " "))\"".utf8)
            out.append(contentsOf: t[nameEnd..<e])
        }
        return out
    }

    /// What the column rules (numbers, empty columns, durations) decide for one column,
    /// from the facts of its body cells: shared by the pass and ``TextColumn``.
    struct ColumnRule {
        var numeric = true, sawValue = false, decimals = 0, durations = false

        mutating func add(_ f: CellFacts) {
            if f.isEmpty { return }
            sawValue = true
            if let v = f.seconds, v >= 60 { durations = true }
            if let d = f.decimals { decimals = max(decimals, d) } else { numeric = false }
        }

        /// The classes of every cell of the column, header included.
        var classes: [String] { (numeric && sawValue ? ["num"] : []) + (sawValue ? [] : ["col-empty"]) }
        /// The decimals every number cell is padded to, or nil (not a number column, or durations).
        var padTo: Int? { numeric && sawValue && !durations ? decimals : nil }
    }

    /// One column of cells as the table pass marks it, for any content (text, `<code>`,
    /// entities): each cell read as the pass reads it (``cellText(_:)``, ``CellFacts``),
    /// the column's classes and every rewritten cell exactly as ``enhance(_:)`` makes
    /// them. For the columns of a table written final (``finalTableTag``) whose values the
    /// page model cannot vouch for (free text from a log).
    public struct TextColumn: Sendable {
        /// The cells' final HTML content.
        public var cells: [String]
        /// The cells' class attribute (with its leading space), or "".
        public var `class`: String

        /// `contents`: the HTML content of each body cell (escaped text, markup).
        public init(_ contents: [String]) {
            let facts = contents.map { CellFacts(cellText(ArraySlice($0.utf8))) }
            var rule = ColumnRule()
            for f in facts { rule.add(f) }
            cells = zip(contents, facts).map { content, f in
                // Only a cell holding text alone is rewritten (``plainContent(_:_:)``).
                guard !content.utf8.contains(0x3C),
                    let text = replacementText(f, padTo: rule.padTo, durations: rule.durations)
                else { return content }
                return HTML.escape(text)
            }
            `class` =
                contents.isEmpty || rule.classes.isEmpty ? "" : " class=\"\(rule.classes.joined(separator: " "))\""
        }
    }

    /// One column of numbers (or `—`) as the table pass marks it, for a page model that
    /// writes a table in its final form (``finalTableTag``), kept beside the pass's own
    /// rules so the two cannot drift: `num` and every number padded to the most decimals
    /// of the column when all its values are numbers, `col-empty` when none is, else as
    /// written.
    public struct NumberColumn: Sendable {
        public var cells: [String]
        /// The cells' class attribute (with its leading space), or "".
        public var `class`: String

        /// The cells' facts read in one pass (each cell's decimals kept, −1 for none), and
        /// the cells copied only when one is padded: three arrays of facts and a copy of
        /// every cell were ≈ 900 instructions a cell, 26 M for 50 participants' pages
        /// (docs/perf-study.md, "the participant page's charts and tables").
        /// `NumberColumnTwinTests` compares it with ``init(plainly:)``.
        public init(_ texts: [String]) {
            var sawValue = false, numeric = true, most = 0, least = Int.max
            let decimals = [Int](unsafeUninitializedCapacity: texts.count) { d, written in
                for i in texts.indices {
                    let f = NumberColumn.facts(texts[i])
                    let have = f.decimals ?? -1
                    d[i] = have
                    if have >= 0 { least = Swift.min(least, have) }
                    if f.empty { continue }
                    sawValue = true
                    if have < 0 { numeric = false } else { most = Swift.max(most, have) }
                }
                written = texts.count
            }
            let want = sawValue && numeric ? most : 0
            cells = least >= want ? texts : texts.indices.map { i in
                let have = decimals[i]
                return have >= 0 && have < want ? padded(texts[i], from: have, to: want) : texts[i]
            }
            let numbers = sawValue && numeric
            `class` = texts.isEmpty ? "" : numbers ? " class=\"num\"" : sawValue ? "" : " class=\"col-empty\""
        }

        /// The plain twin of ``init(_:)``, kept for the tests: the facts as three arrays.
        init(plainly texts: [String]) {
            let facts = texts.map(NumberColumn.facts)
            let empty = facts.map(\.empty), decimals = facts.map(\.decimals)
            let sawValue = empty.contains(false)
            let numeric = sawValue && zip(empty, decimals).allSatisfy { $0 || $1 != nil }
            let want = numeric ? zip(empty, decimals).compactMap { $0 ? nil : $1 }.max() ?? 0 : 0
            cells = zip(texts, decimals).map { text, have in
                if let have, have < want { padded(text, from: have, to: want) } else { text }
            }
            `class` = texts.isEmpty ? "" : numeric ? " class=\"num\"" : sawValue ? "" : " class=\"col-empty\""
        }

        /// ``isEmptyValue(_:)`` and ``numberDecimals(_:)`` of `text`. A text whose first and
        /// last bytes are printable ASCII needs no trimming and reads as its bytes (a byte
        /// that is not ASCII is no digit, point or comma there, as its Character is none
        /// on the general path); anything else (`—`, `−3`, white space) takes the general rules.
        static func facts(_ text: String) -> (empty: Bool, decimals: Int?) {
            var text = text
            let fast = text.withUTF8 { b -> (Bool, Int?)? in
                guard let first = b.first, let last = b.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F
                else { return nil }
                return (b.count == 1 && first == 0x2D, asciiNumberDecimals(b))
            }
            return fast ?? (isEmptyValue(text), numberDecimals(text))
        }
    }
}
