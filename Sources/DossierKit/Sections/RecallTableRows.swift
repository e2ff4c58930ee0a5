import RecallStudy
import Render

// A table's row of cells written as one CSV record at once (rolled-up.csv, the row
// blocks of the study-wide tables): docs/perf-study.md, "Issue #45, the study's data
// path written from bytes". The plain twin is ``CSVWriter/tableRowFieldByField(_:)``.

extension CSVFieldSink where Self: ~Copyable {
    /// The cells of one row, then the record's end. Each cell is read in place
    /// (`r[i]`), not copied out by the array's iterator: a text cell's copy was a retain
    /// and a release of its string.
    mutating func tableCells(_ r: [TableCell]) {
        for i in r.indices {
            switch r[i] {
            case .text(let s): textField(s)
            case .flag(let b): plainField(b ? "True" : "False")
            case .int(let n): numberField(n)
            case .number(let d): numberField(d)
            case .empty: emptyField()
            }
        }
        endRecord()
    }
}

extension CSVWriter {
    /// One row, written at once (``record(capacity:_:)``) when every field is plain and
    /// every number whole, hundredths or thousandths, as nearly every row is; else
    /// field by field, as before.
    mutating func tableRow(_ r: [TableCell]) {
        let written = record(capacity: 1024) { f in
            f.tableCells(r)
            return f.fits
        }
        if !written { tableRowFieldByField(r) }
    }

    /// ``tableRow(_:)`` a field at a time through the writer (the tests' twin, and the
    /// path of a row that does not fit a record).
    mutating func tableRowFieldByField(_ r: [TableCell]) {
        for c in r {
            switch c {
            case .text(let s): textField(s)
            case .flag(let b): textField(b ? "True" : "False")
            case .int(let n): numberField(n)
            case .number(let d): numberField(d)
            case .empty: emptyField()
            }
        }
        endRecord()
    }
}
