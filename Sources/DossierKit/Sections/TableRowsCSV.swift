#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

// A table's rows of cells written as CSV into one buffer of this module (raw.csv's
// `RawCSVBuffer`), every field writer inlined into the row: rolled-up.csv, the study's
// CSV files made whole, and the CSV half of a participant's row blocks
// (docs/perf-study.md, "Issue #45, the study's CSV, page render and output writing").
// Before, each row went through `CSVWriter.tableRow`: a record written into a stack
// buffer by `CSVWriter.RecordBytes`, whose field writers (in `Render`) were a call
// each, then appended to the writer's array, which was copied again into a `Data`.
// The plain twin is ``TableRowsCSV/dataByWriter(header:rows:bom:)`` (a `CSVWriter`,
// field by field), compared in `TableRowsCSVTwinTests`.

enum TableRowsCSV {
    /// The bytes of `CSVWriter(header: header, includeBOM: bom)` with
    /// `tableRowFieldByField` of each row: the header record (when given), then each
    /// row's cells as one record.
    static func data(header: [String]? = nil, rows: [[TableCell]], bom: Bool = false) -> Data {
        var w = buffer(header: header, rows: rows.count, bom: bom)
        for r in rows { w.tableCells(r) }
        return w.data()
    }

    /// An empty buffer for about `rows` rows, starting with the header record (and the
    /// byte-order mark) when given.
    static func buffer(header: [String]? = nil, rows: Int, bom: Bool = false) -> RawCSVBuffer {
        let start = header == nil && !bom ? Data() : CSVWriter(header: header, includeBOM: bom).data
        return RawCSVBuffer(capacity: start.count + 128 * rows, start: start)
    }

    /// ``data(header:rows:bom:)`` through a `CSVWriter`, a field at a time: the plain twin.
    static func dataByWriter(header: [String]? = nil, rows: [[TableCell]], bom: Bool = false) -> Data {
        var w = CSVWriter(header: header, includeBOM: bom)
        for r in rows { w.tableRowFieldByField(r) }
        return w.data
    }
}
