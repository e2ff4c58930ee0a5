import Escaping
import Foundation
import RecallStudy
import Render

/// A study-wide table written as CSV and JSON while its rows arrive, one participant's
/// rows at a time: no table of every row and no ``JSONValue`` tree of every row is held
/// (those were O(participants) memory and most of the study summary's time). The bytes
/// are exactly those of ``RecallRender/csv(_:)-(Table)`` and ``RecallStudyFiles/json(_:)``
/// on the whole table (`RecallTableStreamTests`): JSON as ``JSONValue`` writes it — an
/// array of objects, two-space indentation, keys sorted by their UTF-8 bytes, numbers by
/// ``JSONValue/formatNumber(_:)``, `True`/`False` as booleans, empty cells as `null`.
struct RecallTableStream {
    private var csv: CSVWriter
    private var json: [UInt8] = []
    private let header: [String]
    /// Column indices in the JSON objects' key order, and each key already quoted.
    private let order: [Int]
    private let quotedKeys: [[UInt8]]
    private var rows = 0
    /// Bytes of the CSV header record (see ``csvRows``).
    private let csvHeaderCount: Int
    /// Whether JSON is written too (a dynamics table is CSV only).
    private let withJSON: Bool

    init(header: [String], json withJSON: Bool = true) {
        self.header = header
        self.withJSON = withJSON
        csv = CSVWriter(header: header)
        csvHeaderCount = csv.data.count
        order = withJSON ? header.indices.sorted { Array(header[$0].utf8).lexicographicallyPrecedes(Array(header[$1].utf8)) } : []
        quotedKeys = withJSON ? header.map { Array(JSONText.quote($0).utf8) } : []
        json.append(0x5B)   // [
    }

    /// Appends rows (cells in header order).
    mutating func append(_ rows: [[TableCell]]) {
        for r in rows { append(row: r) }
    }

    mutating func append(row r: [TableCell]) {
        for c in r {
            switch c {
            case .text(let s): csv.textField(s)
            case .int(let n): csv.numberField(n)
            case .number(let d): csv.numberField(d)
            case .empty: csv.emptyField()
            }
        }
        csv.endRecord()
        guard withJSON else { return }
        // ",\n  {\n    \"key\": value,\n    …\n  }"
        if rows > 0 { json.append(0x2C) }
        json.append(contentsOf: [0x0A, 0x20, 0x20, 0x7B])
        var first = true
        for k in order where k < r.count {   // as zip(header, row): a short row has fewer keys
            if !first { json.append(0x2C) }
            first = false
            json.append(contentsOf: [0x0A, 0x20, 0x20, 0x20, 0x20])
            json.append(contentsOf: quotedKeys[k])
            json.append(contentsOf: [0x3A, 0x20])
            switch r[k] {
            case .text("True"): json.append(contentsOf: Array("true".utf8))
            case .text("False"): json.append(contentsOf: Array("false".utf8))
            case .text(let s): json.append(contentsOf: JSONText.quote(s).utf8)
            case .int(let n): json.append(contentsOf: String(n).utf8)
            case .number(let d): json.append(contentsOf: JSONValue.formatNumber(d).utf8)
            case .empty: json.append(contentsOf: Array("null".utf8))
            }
        }
        if first { json.append(0x7D) }   // an empty object prints as {}
        else { json.append(contentsOf: [0x0A, 0x20, 0x20, 0x7D]) }
        rows += 1
    }

    /// The CSV bytes.
    var csvData: Data { csv.data }

    /// The CSV bytes of the rows alone (no header record).
    var csvRows: [UInt8] { Array(csv.data.dropFirst(csvHeaderCount)) }

    /// The JSON of the rows alone: each row `\n  {…}`, rows joined by `,` (no brackets).
    /// ``jsonData`` is `[` + these + `\n]\n`, or `[]\n` for no rows.
    var jsonRows: [UInt8] { Array(json.dropFirst()) }

    /// The JSON bytes (with a final newline).
    var jsonData: Data {
        if rows == 0 { return Data("[]\n".utf8) }
        var out = json
        out.append(contentsOf: [0x0A, 0x5D, 0x0A])
        return Data(out)
    }
}
