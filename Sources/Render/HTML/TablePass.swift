import CMarkArena
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// The table pass of ``TableMarkup/enhance(_:)`` over the page's own bytes (docs/perf-pages.md,
// "Issue #45, tables and the Markdown wrapper"). Every table is read first (``plan(_:)``):
// where its cells stand, what the column rules decide, the region's label; then the page is
// written once (``write(_:into:)``) straight into the new String's storage, whose size a
// counting run of the same writer gives. No cell has a String or an array of its own; a cell
// that is not ASCII text alone (markup, entities, `—`) is read through the general rules.
// The plain twin is `ReferenceTableMarkup` in the tests.
extension TableMarkup {
    /// One cell of a table as the pass read it, with what the column rules read from its
    /// text. Offsets are into the table's bytes.
    struct CellSpot {
        var start = 0, openEnd = 0, contentEnd = 0, end = 0
        /// Where the tag's name ends, when a class attribute may be written there (an
        /// ASCII tag without one: every cell cmark writes); 0 for any other tag.
        var nameEnd = 0
        var column = 0
        var isHeader = false
        /// In a body row (after any `<thead>`, with a cell that is not a header cell).
        var body = false
        /// The content holds a `<`: it is never rewritten (``plainContent``).
        var markup = false
        /// The content is its own text: ASCII without `<`, `>` or `&`.
        var asciiText = false
        var isEmpty = false
        /// Decimals of a number cell, or -1.
        var decimals = -1
        var seconds: Double? = nil
        /// 1: reads `true` (written `yes`), 2: reads `false` (written `no`).
        var word: UInt8 = 0
    }

    enum Label {
        case known(String)
        /// The last heading lies before the text between this table and the one before:
        /// read from the page written so far (as ``lastHeading(_:)`` of the old window).
        case fromPageSoFar
    }

    /// One table of the page and what is written for it.
    struct TablePlan {
        var start = 0, end = 0
        /// A `<table` not followed by a space or `>`: copied as it is up to `end`.
        var skip = false
        var wrap = Wrap.none
        /// Where `<div class="table-wrap">` starts (a legacy wrapper that becomes the region).
        var legacyDiv: Int? = nil
        var label: Label? = nil
        var tall = false
        var isFinal = false
        /// The opening tag with the class `data` (nil: `<table class="data">`).
        var openTag: [UInt8]? = nil
        var tagEnd = 0
        /// The table with its class, when its opening tag holds a `<` past its first byte
        /// (then the cells are read from it, as the plain pass does).
        var withClass: [UInt8]? = nil
        /// The columns stay as written (nested table, spans, no body row).
        var keepsColumns = true
        var cells = 0..<0
        var rules = 0..<0
    }

    /// What is read of one page before it is written.
    struct PagePlan {
        var tables: [TablePlan] = []
        var cells: [CellSpot] = []
        var rules: [ColumnRule] = []
        var labelFromPage = false

        /// Every table is final and directly in its region: only the markers change
        /// (``droppingFinalMarkers(_:_:)``).
        var finalInRegionsOnly: Bool {
            tables.allSatisfy { !$0.skip && $0.isFinal && $0.wrap == .region }
        }
    }

    /// ``enhance(_:)`` of the page `b` holding a `<table`, read into `plan`.
    static func enhancedPage(_ b: UnsafeBufferPointer<UInt8>, _ plan: PagePlan) -> String {
        if plan.labelFromPage {
            var sink = ArraySink(capacity: b.count + 512)
            write(b, plan, into: &sink)
            return String(decoding: sink.bytes, as: UTF8.self)
        }
        var counter = CountingSink()
        write(b, plan, into: &counter)
        return String(unsafeUninitializedCapacity: counter.count) { out in
            var sink = FixedSink(base: out.baseAddress!, capacity: out.count)
            write(b, plan, into: &sink)
            return sink.count
        }
    }

    // MARK: Reading

    static func plan(_ b: UnsafeBufferPointer<UInt8>) -> PagePlan {
        var page = PagePlan()
        var i = 0
        while let start = search(b, "<table", from: i, pivot: 3) {
            var table = TablePlan()
            table.start = start
            guard start + 6 < b.count, b[start + 6] == 0x20 || b[start + 6] == 0x3E else {
                table.skip = true; table.end = start + 6
                page.tables.append(table); i = start + 6; continue
            }
            guard let end = matchingEnd(b, start) else { break }
            table.end = end
            let t = UnsafeBufferPointer(rebasing: b[start..<end])
            table.wrap = wrapping(b, from: i, to: start)
            if table.wrap == .legacy { table.legacyDiv = lastSearch(b, legacyWrap, from: i, to: start) }
            if table.wrap == .none || table.legacyDiv != nil {
                table.tall = bodyRowCount(t) > 25
                table.label = label(b, table: t, from: i, to: start)
                if case .fromPageSoFar = table.label { page.labelFromPage = true }
            }
            table.isFinal = isFinal(t)
            if !table.isFinal { read(t, into: &table, &page) }
            page.tables.append(table)
            i = end
        }
        return page
    }

    static let legacyWrap: StaticString = "<div class=\"table-wrap\">"

    /// The region's label: the caption, else the last heading before the table, else "Table".
    static func label(_ b: UnsafeBufferPointer<UInt8>, table t: UnsafeBufferPointer<UInt8>, from i: Int, to start: Int)
        -> Label
    {
        if search(t, "<caption", from: 0) != nil, let c = caption(Array(t)) { return .known(c) }
        let s = UnsafeBufferPointer(rebasing: b[max(i, start - 4096)..<start])
        // The old window was the last 4 KB written and these bytes; a heading wholly in
        // these bytes is the one its backward search finds first.
        guard let (e, level) = lastClosingHeading(s) else { return .fromPageSoFar }
        var k = e - 3
        while k >= 0, !(s[k] == 0x3C && s[k + 1] == 0x68 && s[k + 2] == 0x30 + UInt8(level)) { k -= 1 }
        guard k >= 0 else { return .fromPageSoFar }
        guard let gt = firstIndex(s, of: 0x3E, from: k), gt < e else { return .known("Table") }
        let text = trimmed(decodeEntities(stripTags(Array(s[(gt + 1)..<e]))))
        return .known(text.isEmpty ? "Table" : text)
    }

    /// ``isWrapped(before:outSoFar:)`` of `b[i..<start]`; nothing before the table (the
    /// page's start, or right after another table, whose written form ends in `</table>`
    /// or `</div>`) is never wrapped.
    static func wrapping(_ b: UnsafeBufferPointer<UInt8>, from i: Int, to start: Int) -> Wrap {
        var j = start - 1
        while j >= i, b[j] == 0x20 || b[j] == 0x0A || b[j] == 0x09 || b[j] == 0x0D { j -= 1 }
        guard j >= i, b[j] == 0x3E else { return .none }
        var lt = j
        while lt >= i, b[lt] != 0x3C { lt -= 1 }
        guard lt >= i else { return .none }
        let tag = UnsafeBufferPointer(rebasing: b[lt...j])
        guard tag.count >= 4, tag[1] == 0x64, tag[2] == 0x69, tag[3] == 0x76 else { return .none }   // "<div"
        if search(tag, "table-scroll", from: 0) != nil { return .region }
        if search(tag, "\"table-wrap\"", from: 0) != nil { return .legacy }
        return .none
    }

    /// Reads the cells and column rules of the table `t` (not final).
    static func read(_ t: UnsafeBufferPointer<UInt8>, into table: inout TablePlan, _ page: inout PagePlan) {
        guard let gt = firstIndex(t, of: 0x3E, from: 0) else { table.tagEnd = 0; table.openTag = []; return }
        table.tagEnd = gt + 1
        let tag = UnsafeBufferPointer(rebasing: t[0...gt])
        if !(tag.count == 7 && tag[6] == 0x3E) {                              // anything but `<table>`
            table.openTag = tagWithClasses(Array(tag), 0, tag.count, ["data"])
        }
        if firstIndex(tag, of: 0x3C, from: 1) != nil {
            // A `<` inside the opening tag: read the cells from the table with its class.
            let withClass = (table.openTag ?? Array("<table class=\"data\">".utf8)) + Array(t[(gt + 1)...])
            table.withClass = withClass
            withClass.withUnsafeBufferPointer { readCells($0, into: &table, &page) }
            return
        }
        readCells(t, into: &table, &page)
    }

    /// The rows and cells of `t` exactly as the plain pass finds them: `<tr` to the next
    /// `</tr>`, in it each `<td`/`<th` to the next close tag of its kind.
    static func readCells(_ t: UnsafeBufferPointer<UInt8>, into table: inout TablePlan, _ page: inout PagePlan) {
        if search(t, "<table", from: 1, pivot: 3) != nil || holdsSpan(t) { return }
        let headEnd = search(t, "</thead>", from: 0, pivot: 4)
        let first = page.cells.count
        if page.cells.isEmpty { page.cells.reserveCapacity(64) }
        var columns = 0
        var p = 0
        while let r = search(t, "<tr", from: p), let re = search(t, "</tr>", from: r, pivot: 3) {
            let rowStart = page.cells.count
            var q = r, allHeaders = true
            while var c = nextSpot(t, from: q, limit: re) {
                allHeaders = allHeaders && c.isHeader
                c.column = page.cells.count - rowStart
                page.cells.append(c)
                q = c.end
            }
            let inHead = headEnd.map { r < $0 } ?? false
            if !inHead && !allHeaders {
                columns = max(columns, page.cells.count - rowStart)
                for k in rowStart..<page.cells.count {
                    page.cells[k].body = true
                    readFacts(t, &page.cells[k])
                }
            }
            p = re + 5
        }
        table.cells = first..<page.cells.count
        guard columns > 0 else { return }
        let firstRule = page.rules.count
        page.rules.append(contentsOf: repeatElement(ColumnRule(), count: columns))
        for k in table.cells where page.cells[k].body {
            let c = page.cells[k]
            page.rules[firstRule + c.column].add(isEmpty: c.isEmpty, seconds: c.seconds, decimals: c.decimals)
        }
        table.rules = firstRule..<page.rules.count
        table.keepsColumns = false
    }

    /// Whether `colspan` or `rowspan` occurs in `t`: one search for `span`.
    static func holdsSpan(_ t: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 3
        while let s = search(t, "span", from: k) {
            if (t[s - 3] == 0x63 && t[s - 2] == 0x6F && t[s - 1] == 0x6C)            // "col"
                || (t[s - 3] == 0x72 && t[s - 2] == 0x6F && t[s - 1] == 0x77) { return true }   // "row"
            k = s + 1
        }
        return false
    }

    /// The plain reader's `nextCell` without the cell's text.
    static func nextSpot(_ t: UnsafeBufferPointer<UInt8>, from: Int, limit: Int) -> CellSpot? {
        var k = from
        while k < limit, let lt = firstIndex(t, of: 0x3C, from: k, before: limit) {
            k = lt
            if k + 3 < limit, t[k + 1] == 0x74, t[k + 2] == 0x64 || t[k + 2] == 0x68,
               t[k + 3] == 0x3E || t[k + 3] == 0x20 {
                let header = t[k + 2] == 0x68
                guard let gt = firstIndex(t, of: 0x3E, from: k) else { return nil }
                guard let ce = search(t, header ? "</th>" : "</td>", from: gt), ce < limit else { return nil }
                var c = CellSpot()
                c.start = k; c.openEnd = gt + 1; c.contentEnd = ce; c.end = ce + 5; c.isHeader = header
                c.nameEnd = nameEnd(t, k, gt + 1)
                return c
            }
            k += 1
        }
        return nil
    }

    /// The end of the tag name of `t[s..<e]` for ``putTag(_:_:_:_:_:into:)``'s direct way
    /// (an ASCII tag without `class="`), or 0.
    static func nameEnd(_ t: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Int {
        for k in s..<e {
            let c = t[k]
            if c >= 0x80 || (c == 0x63 && k + 7 <= e && memcmp(t.baseAddress! + k, classAttribute, 7) == 0) { return 0 }
        }
        var n = s + 1
        while n < e && t[n] != 0x20 && t[n] != 0x3E && t[n] != 0x2F { n += 1 }
        return n
    }

    /// The facts of a body cell: over its bytes when its content is ASCII text alone (as
    /// ``CellFacts`` reads such text), else through ``cellText(_:)`` and ``CellFacts``.
    static func readFacts(_ t: UnsafeBufferPointer<UInt8>, _ c: inout CellSpot) {
        var special = false
        for k in c.openEnd..<c.contentEnd {
            let x = t[k]
            if x == 0x3C { c.markup = true }
            if x >= 0x80 || x == 0x3C || x == 0x3E || x == 0x26 { special = true }
        }
        if special {
            let f = CellFacts(cellText(ArraySlice(t[c.openEnd..<c.contentEnd])))
            c.isEmpty = f.isEmpty; c.decimals = f.decimals ?? -1; c.seconds = f.seconds
            c.word = f.word == "yes" ? 1 : f.word == "no" ? 2 : 0
            return
        }
        c.asciiText = true
        let (lo, hi) = trimmedRange(t, c.openEnd, c.contentEnd)
        let s = UnsafeBufferPointer(rebasing: t[lo..<hi])
        c.isEmpty = s.isEmpty || (s.count == 1 && s[0] == 0x2D)
        if s.count >= 2, s[s.count - 2] == 0x20, s[s.count - 1] == 0x73 {
            c.seconds = Double(String(decoding: UnsafeBufferPointer(rebasing: s[..<(s.count - 2)]), as: UTF8.self))
        }
        c.decimals = asciiNumberDecimals(s) ?? -1
        if s.count == 4 || s.count == 5 {
            let w: StaticString = s.count == 4 ? "true" : "false"
            var same = true
            for k in 0..<s.count where s[k] | 0x20 != w.utf8Start[k] { same = false; break }
            if same { c.word = s.count == 4 ? 1 : 2 }
        }
    }

    /// `t[lo..<hi]` without ASCII white space at either end (TAB–CR, space).
    static func trimmedRange(_ t: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> (Int, Int) {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0D) }
        var lo = lo, hi = hi
        while lo < hi, isSpace(t[lo]) { lo += 1 }
        while hi > lo, isSpace(t[hi - 1]) { hi -= 1 }
        return (lo, hi)
    }
}
