import CMarkArena
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Where the table pass writes the page: only counting its bytes, into the new String's
/// storage, or into an array.
protocol TableSink {
    mutating func put(_ p: UnsafePointer<UInt8>, _ n: Int)
    /// The bytes written so far; nil when they are not kept.
    func written<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R?
}

extension TableSink {
    mutating func put(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        if !range.isEmpty { put(b.baseAddress! + range.lowerBound, range.count) }
    }

    mutating func put(_ s: StaticString) { put(s.utf8Start, s.utf8CodeUnitCount) }

    mutating func put(bytes: [UInt8]) { bytes.withUnsafeBufferPointer { put($0, 0..<$0.count) } }

    mutating func put(string s: String) {
        var s = s
        s.withUTF8 { put($0, 0..<$0.count) }
    }
}

struct CountingSink: TableSink {
    var count = 0
    mutating func put(_ p: UnsafePointer<UInt8>, _ n: Int) { count += n }
    func written<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? { nil }
}

/// Writes into storage a counting run measured (and stops the process rather than
/// write past it).
struct FixedSink: TableSink {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0
    mutating func put(_ p: UnsafePointer<UInt8>, _ n: Int) {
        precondition(count + n <= capacity, "the table pass wrote more than it counted")
        (base + count).update(from: p, count: n)
        count += n
    }
    func written<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        body(UnsafeBufferPointer(start: base, count: count))
    }
}

struct ArraySink: TableSink {
    var bytes: [UInt8] = []
    init(capacity: Int) { bytes.reserveCapacity(capacity) }
    mutating func put(_ p: UnsafePointer<UInt8>, _ n: Int) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
    }
    func written<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? { bytes.withUnsafeBufferPointer(body) }
}

extension TableMarkup {
    // MARK: Writing

    /// Writes the page `b` with every table of `plan` marked up.
    static func write<S: TableSink>(_ b: UnsafeBufferPointer<UInt8>, _ plan: PagePlan, into out: inout S) {
        var i = 0
        for table in plan.tables {
            if table.skip { out.put(b, i..<table.end); i = table.end; continue }
            let region = table.label.map { label -> RegionTag in
                switch label {
                case .known(let text): RegionTag(label: text, tall: table.tall)
                case .fromPageSoFar:
                    // (``plan(_:)`` sends such a page to a sink that keeps its bytes.)
                    RegionTag(label: (out.written { lastHeadingLabel($0, b, from: i, to: table.start) } ?? nil)
                                  ?? "Table", tall: table.tall)
                }
            }
            switch table.wrap {
            case .none:
                out.put(b, i..<table.start)
                region?.write(into: &out)
                writeTable(b, table, plan, into: &out)
                out.put("</div>")
            case .legacy:
                if let d = table.legacyDiv, let region {
                    out.put(b, i..<d)
                    region.write(into: &out)
                    out.put(b, (d + legacyWrap.utf8CodeUnitCount)..<table.start)
                } else {
                    out.put(b, i..<table.start)
                }
                writeTable(b, table, plan, into: &out)
            case .region:
                out.put(b, i..<table.start)
                writeTable(b, table, plan, into: &out)
            }
            i = table.end
        }
        out.put(b, i..<b.count)
    }

    /// ``lastHeading(_:)`` of the old window: the last 4 KB written and `b[i..<start]`'s last 4 KB.
    static func lastHeadingLabel(_ written: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>,
                                 from i: Int, to start: Int) -> String? {
        let window = Array(written.suffix(4096)) + Array(b[max(i, start - 4096)..<start])
        return lastHeading(window)
    }

    struct RegionTag {
        var label: String
        var tall: Bool

        func write<S: TableSink>(into out: inout S) {
            out.put(tall ? "<div class=\"table-scroll tall\"" : "<div class=\"table-scroll\"")
            out.put(" role=\"region\" tabindex=\"0\" aria-label=\"")
            out.put(string: HTML.escape(label))
            out.put("\">")
        }
    }

    static func writeTable<S: TableSink>(_ b: UnsafeBufferPointer<UInt8>, _ table: TablePlan, _ plan: PagePlan,
                                         into out: inout S) {
        let t = UnsafeBufferPointer(rebasing: b[table.start..<table.end])
        if table.isFinal {
            out.put("<table class=\"data\">")
            out.put(t, finalTableTag.utf8.count..<t.count)
            return
        }
        if let withClass = table.withClass {
            withClass.withUnsafeBufferPointer { writeCells($0, from: 0, table, plan, into: &out) }
            return
        }
        if let tag = table.openTag { out.put(bytes: tag) } else { out.put("<table class=\"data\">") }
        writeCells(t, from: table.tagEnd, table, plan, into: &out)
    }

    /// `t` from `at`, each cell with its column's classes and its new text.
    static func writeCells<S: TableSink>(_ t: UnsafeBufferPointer<UInt8>, from at: Int, _ table: TablePlan,
                                         _ plan: PagePlan, into out: inout S) {
        var at = at
        if !table.keepsColumns {
            let columns = table.rules.count
            for k in table.cells {
                let c = plan.cells[k]
                guard c.column < columns else { continue }
                let rule = plan.rules[table.rules.lowerBound + c.column]
                if let attribute = rule.classAttribute, c.nameEnd > 0 {
                    // ``putTag(_:_:_:_:_:into:)``'s direct way: the rest of the tag goes
                    // with the bytes up to the next edit.
                    out.put(t, at..<c.nameEnd)
                    out.put(attribute)
                    at = c.nameEnd
                } else if let joined = rule.joinedClasses {
                    out.put(t, at..<c.start)
                    let bytes = UnsafeBufferPointer(start: joined.utf8Start, count: joined.utf8CodeUnitCount)
                    putTag(t, c.start, c.openEnd, bytes, rule.classes, into: &out)
                    at = c.openEnd
                }
                if c.body, !c.isHeader || c.column > 0, !c.markup {
                    if putReplacement(t, c, rule, before: at, into: &out) { at = c.contentEnd }
                }
            }
        }
        out.put(t, at..<t.count)
    }

    /// Writes the tag `t[s..<e]` with `classes` added, where `joined` is `classes` joined
    /// by spaces: an ASCII tag without a class attribute (every cell cmark writes: `<td>`,
    /// `<td align="right">`) gets ` class="…"` after its name, written straight out; any
    /// other tag takes ``tagWithClasses(_:_:_:_:)`` (`PageReadFastPathTests` compares the two).
    static func putTag<S: TableSink>(_ t: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int,
                                     _ joined: UnsafeBufferPointer<UInt8>, _ classes: @autoclosure () -> [String],
                                     into out: inout S) {
        var general = s >= e
        for k in s..<e {
            let c = t[k]
            if c >= 0x80 || (c == 0x63 && k + 7 <= e && memcmp(t.baseAddress! + k, classAttribute, 7) == 0) {
                general = true; break
            }
        }
        if general { out.put(bytes: tagWithClasses(Array(t[s..<e]), 0, e - s, classes())); return }
        var nameEnd = s + 1
        while nameEnd < e && t[nameEnd] != 0x20 && t[nameEnd] != 0x3E && t[nameEnd] != 0x2F { nameEnd += 1 }
        out.put(t, s..<nameEnd)
        out.put(" class=\"")
        out.put(joined, 0..<joined.count)
        out.put("\"")
        out.put(t, nameEnd..<e)
    }

    /// Writes `t[before..<c.openEnd]` and the new text of cell `c` when it has one
    /// (``replacementText(_:padTo:durations:)``); false (nothing written) when it keeps its text.
    static func putReplacement<S: TableSink>(_ t: UnsafeBufferPointer<UInt8>, _ c: CellSpot, _ rule: ColumnRule,
                                             before at: Int, into out: inout S) -> Bool {
        if c.word != 0 {
            out.put(t, at..<c.openEnd)
            out.put(c.word == 1 ? "yes" : "no")
            return true
        }
        if rule.durations, let v = c.seconds {
            out.put(t, at..<c.openEnd)
            out.put(string: HTML.escape(ValueFormat.duration(v)))
            return true
        }
        guard let want = rule.padTo, want > 0, c.decimals >= 0, c.decimals < want else { return false }
        out.put(t, at..<c.openEnd)
        guard c.asciiText else {
            let f = CellFacts(cellText(ArraySlice(t[c.openEnd..<c.contentEnd])))
            out.put(string: HTML.escape(padded(f.trimmed, from: c.decimals, to: want)))
            return true
        }
        // ``padded(_:from:to:)`` over the trimmed bytes: the number, a point if it had
        // none, the zeros it lacks, then its unit (` %`, `%` or ` s`).
        let (lo, hi) = trimmedRange(t, c.openEnd, c.contentEnd)
        var numberEnd = hi
        if hi - lo >= 2, t[hi - 2] == 0x20, t[hi - 1] == 0x25 || t[hi - 1] == 0x73 { numberEnd = hi - 2 }
        else if hi - lo >= 1, t[hi - 1] == 0x25 { numberEnd = hi - 1 }
        out.put(t, lo..<numberEnd)
        if c.decimals == 0 { out.put(".") }
        for _ in 0..<(want - c.decimals) { out.put("0") }
        out.put(t, numberEnd..<hi)
        return true
    }
}

extension TableMarkup.ColumnRule {
    mutating func add(isEmpty: Bool, seconds: Double?, decimals: Int) {
        if isEmpty { return }
        sawValue = true
        if let v = seconds, v >= 60 { durations = true }
        if decimals >= 0 { self.decimals = max(self.decimals, decimals) } else { numeric = false }
    }

    /// ``classes`` joined by spaces, or nil for none.
    var joinedClasses: StaticString? { numeric && sawValue ? "num" : sawValue ? nil : "col-empty" }

    /// ` class="…"` of ``joinedClasses``, or nil.
    var classAttribute: StaticString? {
        numeric && sawValue ? " class=\"num\"" : sawValue ? nil : " class=\"col-empty\""
    }
}
