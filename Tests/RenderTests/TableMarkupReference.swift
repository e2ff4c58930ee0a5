@testable import Render

/// The plain twin of ``TableMarkup/enhance(_:)`` (docs/perf-study.md): every rule
/// re-reads the cell's text, the label is found for every table, a wrapper is handled as
/// whole byte arrays put together, and the edits are applied in place from the end. The
/// tests compare the fast path against it.
enum ReferenceTableMarkup {
    /// The end of the table opened at `start`, walking byte by byte (round five).
    static func matchingEnd(_ b: [UInt8], _ start: Int) -> Int? {
        var depth = 0
        var k = start
        while k < b.count {
            if b[k] == 0x3C {
                if TableMarkup.matches(b, k, "<table") { depth += 1; k += 6; continue }
                if TableMarkup.matches(b, k, "</table>") {
                    depth -= 1
                    if depth == 0 { return k + 8 }
                    k += 8; continue
                }
            }
            k += 1
        }
        return nil
    }

    static func enhance(_ html: String) -> String {
        guard TableMarkup.contains(html, "<table") else { return html }
        let b = Array(html.utf8)
        var out: [UInt8] = []
        var i = 0
        while let start = TableMarkup.find(b, "<table", from: i) {
            guard start + 6 < b.count, b[start + 6] == 0x20 || b[start + 6] == 0x3E else {
                out.append(contentsOf: b[i..<(start + 6)]); i = start + 6; continue
            }
            guard let end = matchingEnd(b, start) else { break }
            let before = Array(b[i..<start])
            let table = Array(b[start..<end])
            let wrapped = isWrapped(before: before, outSoFar: out)
            let label =
                TableMarkup.caption(table) ?? TableMarkup.lastHeading(Array(out.suffix(4096)) + before.suffix(4096))
                ?? "Table"
            let tall = TableMarkup.bodyRowCount(table) > 25
            let region = Array(TableMarkup.openTag(label: label, tall: tall).utf8)
            let final = Array(TableMarkup.finalTableTag.utf8)
            let enhanced = table.starts(with: final)
                ? Array("<table class=\"data\">".utf8) + table[final.count...] : enhanceTable(table)
            switch wrapped {
            case .none:         // a region of its own around the table
                out += before + region + enhanced + Array("</div>".utf8)
            case .legacy:       // the old wrapper's opening tag becomes the region's
                out += replacingLast(Array("<div class=\"table-wrap\">".utf8), in: before, with: region) + enhanced
            case .region:       // already in a region: the table alone changes
                out += before + enhanced
            }
            i = end
        }
        out.append(contentsOf: b[i...])
        return String(decoding: out, as: UTF8.self)
    }

    /// `bytes` with the last `old` in it replaced by `new` (unchanged without one).
    static func replacingLast(_ old: [UInt8], in bytes: [UInt8], with new: [UInt8]) -> [UInt8] {
        guard bytes.count >= old.count else { return bytes }
        for k in stride(from: bytes.count - old.count, through: 0, by: -1)
        where Array(bytes[k..<(k + old.count)]) == old {
            return Array(bytes[..<k]) + new + Array(bytes[(k + old.count)...])
        }
        return bytes
    }

    /// Where each row of a table stands: from a `<tr` to the `</tr>` after it.
    static func rowRanges(_ t: [UInt8]) -> [(start: Int, end: Int)] {
        var ranges: [(start: Int, end: Int)] = []
        var from = 0
        while let r = TableMarkup.find(t, "<tr", from: from), let end = TableMarkup.find(t, "</tr>", from: r) {
            ranges.append((r, end))
            from = end + 5
        }
        return ranges
    }

    /// The cells between `start` and `end`, one after another, each with its text as the
    /// general path read it: tags stripped, entities decoded.
    static func cells(_ t: [UInt8], from start: Int, to end: Int) -> [Cell] {
        var cells: [Cell] = []
        while var c = nextCell(t, from: cells.last?.range.upperBound ?? start, limit: end) {
            c.text = TableMarkup.decodeEntitiesByFoundation(TableMarkup.stripTags(Array(t[c.openEnd..<c.contentEnd])))
            cells.append(c)
        }
        return cells
    }

    static func enhanceTable(_ t: [UInt8]) -> [UInt8] {
        var t = addClass(t, at: 0, "data")
        if TableMarkup.find(t, "<table", from: 1) != nil || TableMarkup.find(t, "colspan", from: 0) != nil
            || TableMarkup.find(t, "rowspan", from: 0) != nil { return t }
        // a body row: after any <thead>, with a cell that is not a header cell
        let headEnd = TableMarkup.find(t, "</thead>", from: 0) ?? -1
        let rows = rowRanges(t).map { r -> (cells: [Cell], body: Bool) in
            let found = cells(t, from: r.start, to: r.end)
            return (found, r.start >= headEnd && found.contains { !$0.isHeader })
        }
        let body = rows.filter { $0.body }
        guard !body.isEmpty else { return t }
        let columns = body.map { $0.cells.count }.max() ?? 0
        var numeric = Array(repeating: true, count: columns)
        var sawValue = Array(repeating: false, count: columns)
        var decimals = Array(repeating: 0, count: columns)
        var durations = Array(repeating: false, count: columns)
        for row in body {
            for (k, cell) in row.cells.enumerated() {
                let s = cell.text
                if TableMarkup.isEmptyValue(s) { continue }
                sawValue[k] = true
                if let v = TableMarkup.seconds(s), v >= 60 { durations[k] = true }
                if let d = TableMarkup.numberDecimals(s) {
                    decimals[k] = max(decimals[k], d)
                } else {
                    numeric[k] = false
                }
            }
        }
        var edits: [(Int, Int, [UInt8])] = []
        for row in rows {
            for (k, cell) in row.cells.enumerated() where k < columns {
                var classes: [String] = []
                if numeric[k] && sawValue[k] { classes.append("num") }
                if !sawValue[k] { classes.append("col-empty") }
                if row.body, !cell.isHeader || k > 0 {
                    if let text = replacementText(
                        cell.text, padTo: numeric[k] && sawValue[k] && !durations[k] ? decimals[k] : nil,
                        durations: durations[k]),
                       plainContent(t, cell) {
                        edits.append((cell.openEnd, cell.contentEnd, Array(HTML.escape(text).utf8)))
                    }
                }
                if !classes.isEmpty {
                    edits.append((cell.range.lowerBound, cell.openEnd,
                                  Array(TableMarkup.withClasses(t, cell.range.lowerBound, cell.openEnd, classes).utf8)))
                }
            }
        }
        for (s, e, rep) in edits.sorted(by: { $0.0 > $1.0 }) { t.replaceSubrange(s..<e, with: rep) }
        return t
    }

    static func replacementText(_ s: String, padTo decimals: Int?, durations: Bool = false) -> String? {
        let trimmed = TableMarkup.trimmed(s)
        switch trimmed.lowercased() {
        case "true": return "yes"
        case "false": return "no"
        default: break
        }
        if durations, let v = TableMarkup.seconds(trimmed) {
            return ValueFormat.duration(v)
        }
        if let want = decimals, want > 0, let have = TableMarkup.numberDecimals(trimmed), have < want {
            // the number, a point if it had none, the zeros it lacks, then its unit
            let unit = [" %", "%", " s"].first { trimmed.hasSuffix($0) } ?? ""
            let number = String(trimmed.dropLast(unit.count))
            return number + (have == 0 ? "." : "") + String(repeating: "0", count: want - have) + unit
        }
        return nil
    }

    /// Whether the last element opened before the table (only white space between) is a
    /// `table-scroll` region (`.region`) or a legacy `table-wrap` div (`.legacy`); with
    /// nothing before the table, the page written so far is read.
    static func isWrapped(before: [UInt8], outSoFar: [UInt8]) -> TableMarkup.Wrap {
        let buf = before.isEmpty ? outSoFar : before
        var j = buf.count - 1
        while j >= 0, buf[j] == 0x20 || buf[j] == 0x0A || buf[j] == 0x09 || buf[j] == 0x0D { j -= 1 }
        guard j >= 0, buf[j] == 0x3E else { return .none }
        guard let lt = TableMarkup.lastIndex(buf, of: 0x3C, before: j) else { return .none }
        let tag = Array(buf[lt...j])
        guard tag.starts(with: "<div".utf8) else { return .none }
        if TableMarkup.find(tag, "table-scroll", from: 0) != nil { return .region }
        if TableMarkup.find(tag, "\"table-wrap\"", from: 0) != nil { return .legacy }
        return .none
    }

    static func addClass(_ t: [UInt8], at s: Int, _ cls: String) -> [UInt8] {
        guard let gt = TableMarkup.firstIndex(t, of: 0x3E, from: s) else { return t }
        var out = t
        out.replaceSubrange(s..<(gt + 1), with: Array(TableMarkup.withClasses(t, s, gt + 1, [cls]).utf8))
        return out
    }

    struct Cell {
        var range: Range<Int>        // the whole `<td …>…</td>`
        var openEnd: Int             // index after the opening tag's `>`
        var contentEnd: Int          // index of `</td>`
        var isHeader: Bool
        var text: String
    }

    /// Whether the cell holds text only (no child elements), so its text may be replaced.
    static func plainContent(_ t: [UInt8], _ c: Cell) -> Bool {
        !t[c.openEnd..<c.contentEnd].contains(0x3C)
    }

    /// The next cell: a `<td`/`<th` followed by `>` or a space, to the next close tag of its kind.
    static func nextCell(_ t: [UInt8], from: Int, limit: Int) -> Cell? {
        var k = from
        while k < limit {
            if t[k] == 0x3C, k + 3 < limit, t[k + 1] == 0x74, t[k + 2] == 0x64 || t[k + 2] == 0x68,
               t[k + 3] == 0x3E || t[k + 3] == 0x20 {
                let header = t[k + 2] == 0x68
                guard let gt = TableMarkup.firstIndex(t, of: 0x3E, from: k) else { return nil }
                guard let ce = TableMarkup.find(t, header ? "</th>" : "</td>", from: gt), ce < limit else { return nil }
                return Cell(range: k..<(ce + 5), openEnd: gt + 1, contentEnd: ce, isHeader: header, text: "")
            }
            k += 1
        }
        return nil
    }
}
