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
    /// A page without `<table` is returned as it is; any other is read in place and
    /// written once (``enhancedPage(_:)``).
    public static func enhance(_ html: String) -> String {
        var html = html
        var finalOnly: PagePlan? = nil
        let written = html.withUTF8 { b -> String? in
            guard search(b, "<table", from: 0, pivot: 3) != nil else { return nil }
            let plan = plan(b)
            if plan.finalInRegionsOnly { finalOnly = plan; return nil }
            return enhancedPage(b, plan)
        }
        if let written { return written }
        if let finalOnly { return droppingFinalMarkers(html, finalOnly) }
        return html
    }

    /// ``enhance(_:)`` of a page whose every table is final (``finalTableTag``) and
    /// already directly inside its region (the study's participant page, with thousands
    /// of cells): the markers become `<table class="data">` and the rest of the page is
    /// appended as slices of itself, which a String need not check as UTF-8 again.
    /// `TableCellsTests` compares it with the plain twin.
    static func droppingFinalMarkers(_ html: String, _ plan: PagePlan) -> String {
        let utf8 = html.utf8
        func at(_ k: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: k) }
        var out = ""
        out.reserveCapacity(utf8.count)
        var i = 0
        for table in plan.tables {
            out += html[at(i)..<at(table.start)]
            out += "<table class=\"data\">"
            out += html[at(table.start + finalTableTag.utf8.count)..<at(table.end)]
            i = table.end
        }
        out += html[at(i)...]
        return out
    }

    static func openTag(label: String, tall: Bool) -> String {
        "<div class=\"table-scroll\(tall ? " tall" : "")\" role=\"region\" tabindex=\"0\" "
            + "aria-label=\"\(HTML.escape(label))\">"
    }

    enum Wrap { case none, legacy, region }

    // MARK: One table

    static func isFinal(_ t: UnsafeBufferPointer<UInt8>) -> Bool {
        let tag: StaticString = "<table class=\"data\" data-final>"
        return t.count >= tag.utf8CodeUnitCount && memcmp(t.baseAddress!, tag.utf8Start, tag.utf8CodeUnitCount) == 0
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
    /// pass from `<t` to `<t` (neither `<td` nor `<tr` can overlap itself, so this counts
    /// what a search for each from the end of the last finds: ``bodyRowCountBySearch(_:)``,
    /// compared in `TableMarkupTests`).
    static func bodyRowCount(_ t: [UInt8]) -> Int { t.withUnsafeBufferPointer { bodyRowCount($0) } }

    static func bodyRowCount(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        var cells = 0, rows = 0
        guard let base = b.baseAddress else { return 0 }
        var k = 0
        while k + 3 <= b.count, let lt = dossier_find_pair(base + k, b.count - k, 0x3C, 0x74) {   // "<t"
            k = base.distance(to: lt.assumingMemoryBound(to: UInt8.self))
            if k + 3 <= b.count, b[k + 1] == 0x74 {                                 // "<t"
                if b[k + 2] == 0x64 { cells += 1 } else if b[k + 2] == 0x72 { rows += 1 }   // "d", "r"
            }
            k += 1
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
