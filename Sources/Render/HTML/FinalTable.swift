// MARK: - Writing a table in its final form

extension TableMarkup {
    /// A table written by a page model in the form the table pass gives it, opened with
    /// ``finalTableTag`` so the pass keeps its cells (docs/design-system.md, "Tables"):
    /// one header row and the body rows, column by column. Each column brings its class
    /// attribute and cells as the pass would make them (``NumberColumn``, ``TextColumn``,
    /// or integers, which are always `num`); the table is written once, as bytes, with
    /// the white space its template used to have, so the page is unchanged byte for byte.
    public struct FinalTable {
        /// One column: its header text (HTML), the class attribute of its cells and
        /// header (with its leading space, or ""), and its body cells.
        public struct Column {
            public var title: String
            public var classAttribute: String
            public var cells: Cells

            public init(_ title: String, classAttribute: String, cells: Cells) {
                self.title = title
                self.classAttribute = classAttribute
                self.cells = cells
            }

            /// A column of whole numbers: `num` (when there are rows), digits as written.
            public static func integers(_ title: String, _ values: [Int]) -> Column {
                Column(title, classAttribute: values.isEmpty ? "" : " class=\"num\"", cells: .integers(values))
            }

            /// A column marked as the pass marks numbers (``NumberColumn``).
            public static func numbers(_ title: String, _ column: NumberColumn) -> Column {
                Column(title, classAttribute: column.class, cells: .html(column.cells))
            }

            /// A column of any content marked as the pass marks it (``TextColumn``).
            public static func text(_ title: String, _ column: TextColumn) -> Column {
                Column(title, classAttribute: column.class, cells: .html(column.cells))
            }
        }

        /// A column's body cells: final HTML content, or whole numbers (written as `String(v)`).
        public enum Cells {
            case html([String])
            case integers([Int])
        }

        /// The white space and tags around the header and the rows, as the template wrote
        /// them: `<table …>` + `beforeHeader` + header cells + `afterHeader` + each row
        /// between `rowOpen` and `rowClose` + `afterRows`.
        public struct Layout: Sendable {
            public var beforeHeader, afterHeader, rowOpen, rowClose, afterRows: String

            public init(beforeHeader: String, afterHeader: String, rowOpen: String, rowClose: String, afterRows: String)
            {
                self.beforeHeader = beforeHeader
                self.afterHeader = afterHeader
                self.rowOpen = rowOpen
                self.rowClose = rowClose
                self.afterRows = afterRows
            }
        }

        /// The table's HTML, from ``finalTableTag`` to `</table>`. Every column has
        /// `rows` cells.
        ///
        /// Written through the charts' byte writer (``SVGWriter``): each piece copied into
        /// the room after the bytes, a whole number's digits from the stack, where an
        /// array's `append(contentsOf:)` of each piece and a `String` per number cost 28 M
        /// instructions for 50 participants' pages (docs/perf-study.md, "the study's pages
        /// kept as bytes"). `FinalTableTwinTests` compares it with ``htmlByArrays(_:rows:layout:)``.
        public static func html(_ columns: [Column], rows: Int, layout: Layout) -> String {
            var o = SVGWriter(capacity: 200 + columns.count * 40 + rows * columns.count * 24)
            o.write(raw: finalTableTag)
            o.write(raw: layout.beforeHeader)
            for column in columns {
                o.write(literal: "<th"); o.write(raw: column.classAttribute); o.write(literal: ">")
                o.write(raw: column.title)
                o.write(literal: "</th>")
            }
            o.write(raw: layout.afterHeader)
            // Each column's opening cell tag made once (a study page has ~1,500 cells), and
            // its cells read out of the enum once (a switch per cell took its array out).
            // (The opening tags as bytes, one after the other: each was a `String` of its own.)
            var openings = SVGWriter(capacity: 32 * columns.count), openingEnds: [Int] = []
            var html: [[String]] = [], integers: [[Int]] = [], isHTML: [Bool] = []
            openingEnds.reserveCapacity(columns.count); html.reserveCapacity(columns.count)
            integers.reserveCapacity(columns.count); isHTML.reserveCapacity(columns.count)
            for column in columns {
                openings.write(literal: "<td"); openings.write(raw: column.classAttribute); openings.write(literal: ">")
                openingEnds.append(openings.count)
                switch column.cells {
                case .html(let cells): html.append(cells); integers.append([]); isHTML.append(true)
                case .integers(let values): html.append([]); integers.append(values); isHTML.append(false)
                }
            }
            // The opening tags' bytes and the columns borrowed once for the whole table, the
            // cells read in place: taken per cell, they were a retain and a release of the
            // openings' buffer and of the column's array (and of the cell's string) each.
            openings.withBytes { all in
                html.withUnsafeBufferPointer { html in
                    integers.withUnsafeBufferPointer { integers in
                        for row in 0..<rows {
                            o.write(raw: layout.rowOpen)
                            for k in columns.indices {
                                let start = k == 0 ? 0 : openingEnds[k - 1]
                                o.write(bytes: UnsafeBufferPointer(rebasing: all[start..<openingEnds[k]]))
                                if isHTML[k] {
                                    html[k].withUnsafeBufferPointer { o.write(raw: $0[row]) }
                                } else {
                                    o.write(whole: integers[k][row])
                                }
                                o.write(literal: "</td>")
                            }
                            o.write(raw: layout.rowClose)
                        }
                    }
                }
            }
            o.write(raw: layout.afterRows)
            return o.string
        }

        /// The plain twin of ``html(_:rows:layout:)``, kept for the tests: every piece
        /// appended to an array of bytes (`Array.append(contentsOf:)`, 100–160
        /// instructions a piece).
        public static func htmlByArrays(_ columns: [Column], rows: Int, layout: Layout) -> String {
            var o: [UInt8] = []
            o.reserveCapacity(200 + columns.count * 40 + rows * columns.count * 24)
            o += finalTableTag.utf8
            o += layout.beforeHeader.utf8
            for column in columns {
                o += "<th".utf8; o += column.classAttribute.utf8; o += ">".utf8
                o += column.title.utf8
                o += "</th>".utf8
            }
            o += layout.afterHeader.utf8
            // Each column's opening cell tag made once (a study page has ~1,500 cells), and
            // its cells' text read out of the enum once (a switch per cell copied the column).
            let opening = columns.map { Array("<td\($0.classAttribute)>".utf8) }
            let texts: [[String]] = columns.map { column in
                switch column.cells {
                case .html(let cells): cells
                case .integers(let values): values.map(String.init)
                }
            }
            for row in 0..<rows {
                o += layout.rowOpen.utf8
                for k in texts.indices {
                    o += opening[k]
                    o += texts[k][row].utf8
                    o += "</td>".utf8
                }
                o += layout.rowClose.utf8
            }
            o += layout.afterRows.utf8
            return String(decoding: o, as: UTF8.self)
        }
    }
}
