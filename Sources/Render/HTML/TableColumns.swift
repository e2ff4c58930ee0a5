#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

extension TableMarkup {
    /// A table of plain cells (bare `<th>`/`<td>`, no spans, no nested table) that a page
    /// model writes in its final form (``finalTableTag``) with the table pass's column
    /// rules (``enhance(_:)``) applied by the same code: the facts of every body row are
    /// gathered first (``add(row:)``), then the header and the body rows are written
    /// (``headerRow(_:)``, ``bodyRow(_:)``). The rows never exist as one table of cells,
    /// so a table of thousands of rows (a study's participants) needs memory for its
    /// per-column facts only, not for the table pass's cell list (`TableColumnsTests`:
    /// byte for byte what the pass gives the table written plainly).
    ///
    /// Every body row must have the same number of cells, `count`.
    public struct Columns: Sendable {
        private var numeric: [Bool]
        private var sawValue: [Bool]
        private var decimals: [Int]
        private var durations: [Bool]

        public init(count: Int) {
            numeric = Array(repeating: true, count: count)
            sawValue = Array(repeating: false, count: count)
            decimals = Array(repeating: 0, count: count)
            durations = Array(repeating: false, count: count)
        }

        /// Reads one body row: each cell's content as written between `<td>` and `</td>`.
        public mutating func add(row cells: [String]) {
            for (k, content) in cells.enumerated() where k < numeric.count {
                let f = CellFacts(cellText(ArraySlice(content.utf8)))
                if f.isEmpty { continue }
                sawValue[k] = true
                if let v = f.seconds, v >= 60 { durations[k] = true }
                if let d = f.decimals { decimals[k] = max(decimals[k], d) } else { numeric[k] = false }
            }
        }

        /// `<tr>`, the header cells (content as written) with their columns' classes, `</tr>`.
        public func headerRow(_ cells: [String]) -> String {
            var o = "<tr>"
            for (k, content) in cells.enumerated() { o += tag("th", k) + content + "</th>" }
            return o + "</tr>"
        }

        /// `<tr>`, the body cells with their columns' classes and their text as the pass
        /// rewrites it (words, durations, padded decimals), `</tr>`.
        public func bodyRow(_ cells: [String]) -> String {
            var o = "<tr>"
            for (k, content) in cells.enumerated() {
                o += tag("td", k)
                if k < numeric.count, !content.utf8.contains(0x3C),
                   let text = replacementText(CellFacts(cellText(ArraySlice(content.utf8))),
                                              padTo: numeric[k] && sawValue[k] && !durations[k] ? decimals[k] : nil,
                                              durations: durations[k]) {
                    o += HTML.escape(text)
                } else {
                    o += content
                }
                o += "</td>"
            }
            return o + "</tr>"
        }

        private func tag(_ name: String, _ k: Int) -> String {
            guard k < numeric.count else { return "<\(name)>" }
            let classes = (numeric[k] && sawValue[k] ? ["num"] : []) + (sawValue[k] ? [] : ["col-empty"])
            return classes.isEmpty ? "<\(name)>" : "<\(name) class=\"\(classes.joined(separator: " "))\">"
        }
    }
}
