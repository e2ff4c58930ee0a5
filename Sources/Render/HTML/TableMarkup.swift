import CMarkArena
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Gives every table of a page the one table style (docs/design-system.md, "Tables"),
/// so section templates only write plain `<table>` markup:
///
/// - a table not already inside `<div class="table-scroll">` is wrapped in
///   `<div class="table-scroll" role="region" tabindex="0" aria-label="…">` (a
///   `<div class="table-wrap">` directly around it is turned into one); the label is the
///   table's `<caption>`, else the text of the nearest heading before it, else "Table";
///   tables with more than 25 body rows also get the class `tall` (a scroll box of at
///   most 80 % of the window with a sticky header);
/// - the table gets the class `data`;
/// - per column, over the body rows (a table with `colspan`/`rowspan` or a nested table
///   keeps its columns as written):
///   - a column whose non-empty cells are all numbers (`-1,234.5`, `12 %`, `3.2 s`) gets
///     `class="num"` on every cell and its header, and its decimals are padded with
///     zeros to the most any of its cells has (never rounded): 4, 10.3, 10.11 →
///     4.00, 10.30, 10.11;
///   - a column whose body cells are all empty (`""`, `—`, `–`, `-`) gets
///     `class="col-empty"` (hidden by the style sheet; the CSV/JSON keep it);
///   - a cell reading exactly `true`/`false` (any case) reads `yes`/`no`;
///   - in a column where some cell reads `<seconds> s` with at least 60 seconds,
///     every such cell reads as a duration (``ValueFormat/duration(_:)``:
///     `1144.15 s` → `19 min 04 s`, `42.54 s` → `42.5 s`), not padded.
///
/// A table opened with ``finalTableTag`` was written in its final form by a page model
/// that knows its columns (the study's individual-entries tables): it keeps its cells
/// and only loses the marker (`<table class="data">`); it is wrapped as any other.
public enum TableMarkup {
    /// The opening tag of a table already in the form ``enhance(_:)`` gives it.
    public static let finalTableTag = "<table class=\"data\" data-final>"

    /// `html` with every table treated as described above. Deterministic, linear time.
    public static func enhance(_ html: String) -> String {
        guard contains(html, "<table") else { return html }
        let b = Array(html.utf8)
        return droppingFinalMarkers(html, b) ?? enhanceEachTable(html, b)
    }

    /// ``enhance(_:)`` of a page whose every table is final (``finalTableTag``) and
    /// already directly inside its region (the study's participant page): the markers
    /// become `<table class="data">` and the rest of the page is appended as slices of
    /// itself, with no byte array to build and check as UTF-8 again (that was most of the
    /// pass over such a page; docs/perf-study.md, round six). nil for any other page,
    /// which takes the general pass. `TableCellsTests` compares the two.
    static func droppingFinalMarkers(_ html: String, _ b: [UInt8]) -> String? {
        let utf8 = html.utf8
        func at(_ k: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: k) }
        var out = ""
        out.reserveCapacity(b.count)
        var i = 0
        while let start = find(b, "<table", from: i) {
            // The region's opening tag is within the 512 bytes before the table (the
            // general pass reads the same tag from all the bytes since the last table).
            guard start > i, isFinal(b, start), let end = matchingEnd(b, start),
                  isWrapped(before: Array(b[max(i, start - 512)..<start]), outSoFar: []) == .region else { return nil }
            out += html[at(i)..<at(start)]
            out += "<table class=\"data\">"
            out += html[at(start + finalTableTag.utf8.count)..<at(end)]
            i = end
        }
        out += html[at(i)...]
        return out
    }

    /// The general pass: every table read, marked up and written into a new page.
    static func enhanceEachTable(_ html: String, _ b: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 256)
        var i = 0
        var tableNo = 0
        while let start = find(b, "<table", from: i) {
            guard start + 6 < b.count, b[start + 6] == 0x20 || b[start + 6] == 0x3E else {
                out.append(contentsOf: b[i..<(start + 6)]); i = start + 6; continue
            }
            guard let end = matchingEnd(b, start) else { break }
            tableNo += 1
            var before = Array(b[i..<start])
            let table = Array(b[start..<end])
            let wrapped = isWrapped(before: before, outSoFar: out)
            // The label and row count only matter to a table that gets a region (a
            // study page's tables all have one already): the heading search scans 8 KB.
            func regionTag() -> [UInt8] {
                let label = caption(table) ?? lastHeading(Array(out.suffix(4096)) + before.suffix(4096)) ?? "Table"
                return Array(openTag(label: label, tall: bodyRowCount(table) > 25).utf8)
            }
            let enhanced = isFinal(table) ? withoutFinalMarker(table) : enhanceTable(table)
            if wrapped == .none {
                let tag = regionTag()     // (before `out` grows: the heading search reads it)
                out.append(contentsOf: before)
                out.append(contentsOf: tag)
                out.append(contentsOf: enhanced)
                out.append(contentsOf: Array("</div>".utf8))
            } else if wrapped == .legacy {
                // replace the last `<div class="table-wrap">` in `before` with a region
                if let d = findLast(before, "<div class=\"table-wrap\">") {
                    let tag = regionTag()
                    before.replaceSubrange(d..<(d + "<div class=\"table-wrap\">".utf8.count), with: tag)
                }
                out.append(contentsOf: before)
                out.append(contentsOf: enhanced)
            } else {
                out.append(contentsOf: before)
                out.append(contentsOf: enhanced)
            }
            i = end
        }
        out.append(contentsOf: b[i...])
        return String(decoding: out, as: UTF8.self)
    }

    static func openTag(label: String, tall: Bool) -> String {
        "<div class=\"table-scroll\(tall ? " tall" : "")\" role=\"region\" tabindex=\"0\" "
            + "aria-label=\"\(HTML.escape(label))\">"
    }

    enum Wrap { case none, legacy, region }

    /// Whether the last element opened before the table (only whitespace between) is a
    /// `table-scroll` region (`.region`) or a legacy `table-wrap` div (`.legacy`).
    static func isWrapped(before: [UInt8], outSoFar: [UInt8]) -> Wrap {
        var j = before.count - 1
        var buf = before
        if j < 0 { buf = outSoFar; j = buf.count - 1 }
        while j >= 0, buf[j] == 0x20 || buf[j] == 0x0A || buf[j] == 0x09 || buf[j] == 0x0D { j -= 1 }
        guard j >= 0, buf[j] == 0x3E else { return .none }
        guard let lt = lastIndex(buf, of: 0x3C, before: j) else { return .none }
        let tag = Array(buf[lt...j])
        guard tag.starts(with: "<div".utf8) else { return .none }
        if find(tag, "table-scroll", from: 0) != nil { return .region }
        if find(tag, "\"table-wrap\"", from: 0) != nil { return .legacy }
        return .none
    }

    // MARK: One table

    static func isFinal(_ t: [UInt8], _ at: Int = 0) -> Bool { matches(t, at, finalTableTag) }

    /// A final table (``finalTableTag``) as the page shows it: `<table class="data">`.
    static func withoutFinalMarker(_ t: [UInt8]) -> [UInt8] {
        Array("<table class=\"data\">".utf8) + t[finalTableTag.utf8.count...]
    }

    struct Cell {
        var range: Range<Int>        // the whole `<td …>…</td>`
        var openEnd: Int             // index after the opening tag's `>`
        var contentEnd: Int          // index of `</td>`
        var isHeader: Bool
        var text: String
        /// What the column rules read from `text`.
        var facts: CellFacts
    }

    /// The table's bytes with classes, number padding and words applied.
    static func enhanceTable(_ t: [UInt8]) -> [UInt8] {
        let t = addClass(t, at: 0, "data")
        // nested tables or spans: leave the columns alone
        if find(t, "<table", from: 1) != nil || find(t, "colspan", from: 0) != nil || find(t, "rowspan", from: 0) != nil
        {
            return t
        }
        let headEnd = find(t, "</thead>", from: 0)
        var rows: [(cells: [Cell], body: Bool)] = []
        var p = 0
        while let r = find(t, "<tr", from: p), let re = find(t, "</tr>", from: r) {
            var cells: [Cell] = []
            cells.reserveCapacity(rows.last?.cells.count ?? 8)
            var q = r
            while let c = nextCell(t, from: q, limit: re) {
                cells.append(c)
                q = c.range.upperBound
            }
            let inHead = headEnd.map { r < $0 } ?? false
            rows.append((cells, !inHead && !cells.allSatisfy { $0.isHeader }))
            p = re + 5
        }
        let body = rows.filter { $0.body }
        guard !body.isEmpty else { return t }
        let columns = body.map { $0.cells.count }.max() ?? 0
        var rules = Array(repeating: ColumnRule(), count: columns)
        for row in body {
            for (k, cell) in row.cells.enumerated() { rules[k].add(cell.facts) }
        }
        // The edits of each cell (its opening tag, then its text) come in the order of
        // the table, so the new table is written in one pass forward (``applying(_:to:)``
        // of the same edits gives the same bytes).
        let classesOf = rules.map(\.classes)
        let joinedOf = classesOf.map { Array($0.joined(separator: " ").utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(t.count + 16 * rows.count * columns)
        var at = 0
        for row in rows {
            for (k, cell) in row.cells.enumerated() where k < columns {
                if !classesOf[k].isEmpty {
                    let s = cell.range.lowerBound
                    out.append(contentsOf: t[at..<s])
                    appendTag(t, s, cell.openEnd, classesOf[k], joined: joinedOf[k], to: &out)
                    at = cell.openEnd
                }
                if row.body, !cell.isHeader || k > 0,
                   let text = replacementText(cell.facts, padTo: rules[k].padTo, durations: rules[k].durations),
                   plainContent(t, cell) {
                    out.append(contentsOf: t[at..<cell.openEnd])
                    out.append(contentsOf: HTML.escape(text).utf8)
                    at = cell.contentEnd
                }
            }
        }
        out.append(contentsOf: t[at...])
        return out
    }

    /// The seconds of a `<number> s` cell.
    static func seconds(_ s: String) -> Double? {
        let t = trimmed(s)
        guard t.hasSuffix(" s") else { return nil }
        return Double(t.dropLast(2))
    }

    /// Whether a cell's text counts as empty: `""`, `—`, `–` or `-` (white space trimmed).
    static func isEmptyValue(_ s: String) -> Bool {
        let t = trimmed(s)
        return t.isEmpty || t == "—" || t == "–" || t == "-"
    }

    /// Decimals of a number cell (`-1,234.56`, `12 %`, `3.5 s`), nil when it is no number.
    static func numberDecimals(_ s: String) -> Int? {
        let t = trimmed(s)
        // ASCII text (nearly every cell): the same rule over bytes, where a Character is
        // a byte; the Character walk stays for the rest (`−`, combining marks).
        let ascii: Int?? =
            t.utf8.withContiguousStorageIfAvailable { b in
                b.allSatisfy { $0 < 0x80 } ? .some(asciiNumberDecimals(b)) : nil
            } ?? nil
        return ascii ?? numberDecimalsByCharacter(Substring(t))
    }

    /// ``numberDecimals(_:)`` of trimmed `t`, Character by Character.
    static func numberDecimalsByCharacter(_ t: Substring) -> Int? {
        var t = t
        for unit in [" %", "%", " s"] where t.hasSuffix(unit) { t = t.dropLast(unit.count); break }
        if let f = t.first, f == "-" || f == "+" || f == "−" { t = t.dropFirst() }
        guard let first = t.first, first.isASCII, first.isNumber else { return nil }
        var decimals: Int? = nil
        for ch in t {
            if ch == "." {
                if decimals != nil { return nil }
                decimals = 0
            } else if ch == "," {
                if decimals != nil { return nil }
            } else if ch.isASCII && ch.isNumber {
                if let d = decimals { decimals = d + 1 }
            } else {
                return nil
            }
        }
        if decimals == 0 { return nil }   // "3." is not a number we write
        return decimals ?? 0
    }

    /// ``numberDecimals(_:)`` of trimmed ASCII `b`.
    static func asciiNumberDecimals(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var end = b.count
        if end >= 2, b[end - 2] == 0x20, b[end - 1] == 0x25 || b[end - 1] == 0x73 { end -= 2 }   // " %", " s"
        else if end >= 1, b[end - 1] == 0x25 { end -= 1 }                                         // "%"
        var k = 0
        if k < end, b[k] == 0x2D || b[k] == 0x2B { k += 1 }                                       // "-", "+"
        guard k < end, b[k] >= 0x30 && b[k] <= 0x39 else { return nil }
        var decimals: Int? = nil
        while k < end {
            let c = b[k]
            if c == 0x2E {
                if decimals != nil { return nil }
                decimals = 0
            } else if c == 0x2C {
                if decimals != nil { return nil }
            } else if c >= 0x30 && c <= 0x39 {
                if let d = decimals { decimals = d + 1 }
            } else {
                return nil
            }
            k += 1
        }
        if decimals == 0 { return nil }
        return decimals ?? 0
    }

    /// Whether the cell holds text only (no child elements), so its text may be replaced.
    static func plainContent(_ t: [UInt8], _ c: Cell) -> Bool {
        !t[c.openEnd..<c.contentEnd].contains(0x3C)
    }

    static func nextCell(_ t: [UInt8], from: Int, limit: Int) -> Cell? {
        var k = from
        while k < limit {
            if t[k] == 0x3C, k + 3 < limit, t[k + 1] == 0x74, t[k + 2] == 0x64 || t[k + 2] == 0x68,
               t[k + 3] == 0x3E || t[k + 3] == 0x20 {
                let header = t[k + 2] == 0x68
                guard let gt = firstIndex(t, of: 0x3E, from: k) else { return nil }
                let close = header ? "</th>" : "</td>"
                guard let ce = find(t, close, from: gt), ce < limit else { return nil }
                let text = cellText(t[(gt + 1)..<ce])
                return Cell(range: k..<(ce + 5), openEnd: gt + 1, contentEnd: ce, isHeader: header, text: text,
                            facts: CellFacts(text))
            }
            k += 1
        }
        return nil
    }

    /// The opening tag `t[s..<e]` with `classes` added to its class attribute.
    static func withClasses(_ t: [UInt8], _ s: Int, _ e: Int, _ classes: [String]) -> String {
        var tag = String(decoding: t[s..<e], as: UTF8.self)
        if let at = find(Array(t[s..<e]), "class=\"", from: 0) {
            let value = tag.utf8.index(tag.startIndex, offsetBy: at + 7)     // after `class="`
            let existing = tag[value...].prefix { $0 != "\"" }.split(separator: " ").map(String.init)
            let add = classes.filter { !existing.contains($0) }
            if !add.isEmpty { tag.insert(contentsOf: add.joined(separator: " ") + " ", at: value) }
        } else {
            let nameEnd = tag.dropFirst().firstIndex { $0 == " " || $0 == ">" || $0 == "/" } ?? tag.endIndex
            tag.insert(contentsOf: " class=\"\(classes.joined(separator: " "))\"", at: nameEnd)
        }
        return tag
    }

    static func addClass(_ t: [UInt8], at s: Int, _ cls: String) -> [UInt8] {
        guard let gt = firstIndex(t, of: 0x3E, from: s) else { return t }
        var out = t
        out.replaceSubrange(s..<(gt + 1), with: tagWithClasses(t, s, gt + 1, [cls]))
        return out
    }

    static func caption(_ t: [UInt8]) -> String? {
        guard let c = find(t, "<caption", from: 0), let gt = firstIndex(t, of: 0x3E, from: c),
              let e = find(t, "</caption>", from: gt) else { return nil }
        let s = trimmed(decodeEntities(stripTags(Array(t[(gt + 1)..<e]))))
        return s.isEmpty ? nil : s
    }

    /// The text of the last heading in `b`: the last `</hN>` of any level, and the last
    /// `<hN` before it.
    static func lastHeading(_ b: [UInt8]) -> String? {
        guard let (e, level) = lastClosingHeading(b), let s = findLast(b, "<h\(level)", endingBy: e),
              let gt = firstIndex(b, of: 0x3E, from: s), gt < e else { return nil }
        let text = trimmed(decodeEntities(stripTags(Array(b[(gt + 1)..<e]))))
        return text.isEmpty ? nil : text
    }

    /// The rows after the first, or 0 for a table without a `<td`: both counted in one
    /// pass from `<` to `<` (neither `<td` nor `<tr` can overlap itself, so this counts
    /// what a search for each from the end of the last finds: ``bodyRowCountBySearch(_:)``,
    /// compared in `TableMarkupTests`).
    static func bodyRowCount(_ t: [UInt8]) -> Int {
        var cells = 0, rows = 0
        t.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            var k = 0
            while k + 3 <= b.count, let lt = memchr(base + k, 0x3C, b.count - k) {
                k = base.distance(to: lt.assumingMemoryBound(to: UInt8.self))
                if k + 3 <= b.count, b[k + 1] == 0x74 {                             // "<t"
                    if b[k + 2] == 0x64 { cells += 1 } else if b[k + 2] == 0x72 { rows += 1 }   // "d", "r"
                }
                k += 1
            }
        }
        return cells == 0 ? 0 : rows - 1
    }

    /// ``bodyRowCount(_:)`` by repeated searches (its plain twin).
    static func bodyRowCountBySearch(_ t: [UInt8]) -> Int {
        var n = 0, p = 0
        while let r = find(t, "<td", from: p) { p = r + 3; n += 1 }
        var rows = 0
        p = 0
        while let r = find(t, "<tr", from: p) { p = r + 3; rows += 1 }
        return n == 0 ? 0 : rows - 1
    }
}
