import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
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
    /// What the JSON rows need of a table's header, made once per table: the column
    /// indices in the objects' key order and each key's line up to its value. A participant's
    /// row blocks (``RecallRowBlocks``) share one per table instead of sorting and
    /// quoting the header again for each participant.
    struct Columns: Sendable {
        let header: [String]
        /// Column indices in the JSON objects' key order, and each key's line up to its
        /// value (`\n    "key": `: one append a cell instead of three).
        let order: [Int]
        let keyLines: [[UInt8]]
        /// Whether JSON is written too (a dynamics table is CSV only).
        let withJSON: Bool

        init(header: [String], json withJSON: Bool = true) {
            self.header = header
            self.withJSON = withJSON
            order =
                withJSON
                ? header.indices.sorted { Array(header[$0].utf8).lexicographicallyPrecedes(Array(header[$1].utf8)) }
                : []
            keyLines = withJSON ? header.map { Array("\n    \(JSONText.quote($0)): ".utf8) } : []
        }

        /// A CSV-only table's rows need nothing of its header.
        static let csvOnly = Columns(header: [], json: false)
    }

    private var csv: CSVWriter
    private var json: [UInt8] = []
    private let columns: Columns
    private var rows = 0
    /// Whether rows are written as CSV too (see ``init(_:headerRecord:csv:)``).
    private let writesCSV: Bool
    /// Bytes of the CSV header record (see ``csvRows``).
    private let csvHeaderCount: Int

    /// A table whose CSV starts with its header record.
    init(header: [String], json withJSON: Bool = true) {
        self.init(Columns(header: header, json: withJSON), headerRecord: true)
    }

    /// `headerRecord: false`: rows only (``csvRows`` and ``jsonRows`` are the same
    /// either way), for a participant's blocks. `csv: false`: no CSV rows are written
    /// (a participant's blocks write theirs with ``TableRowsCSV``).
    init(_ columns: Columns, headerRecord: Bool, csv writesCSV: Bool = true) {
        self.columns = columns
        self.writesCSV = writesCSV
        csv = CSVWriter(header: headerRecord ? columns.header : nil)
        csvHeaderCount = csv.data.count
        json.append(0x5B)   // [
    }

    /// Appends rows (cells in header order).
    mutating func append(_ rows: [[TableCell]]) {
        for r in rows { append(row: r) }
    }

    mutating func append(row r: [TableCell]) {
        if writesCSV { csv.tableRow(r) }
        guard columns.withJSON else { return }
        // ",\n  {\n    \"key\": value,\n    …\n  }"
        if rows > 0 { json.append(0x2C) }
        appendJSON("\n  {")
        var first = true
        for k in columns.order where k < r.count {   // as zip(header, row): a short row has fewer keys
            if !first { json.append(0x2C) }
            first = false
            json.append(contentsOf: columns.keyLines[k])
            switch r[k] {
            case .flag(true): appendJSON("true")
            case .flag(false): appendJSON("false")
            case .text(let s): Self.appendQuoted(s, to: &json)
            case .int(let n): DecimalDigits.append(n, to: &json)
            case .number(let d): json.append(contentsOf: JSONValue.formatNumber(d).utf8)
            case .empty: appendJSON("null")
            }
        }
        if first { json.append(0x7D) }   // an empty object prints as {}
        else { appendJSON("\n  }") }
        rows += 1
    }

    private mutating func appendJSON(_ s: StaticString) {
        s.withUTF8Buffer { json.append(contentsOf: $0) }
    }

    /// Appends `s` as ``JSONText/quote(_:)`` writes it. Text with no byte to escape — no
    /// control character, `"` or `\`, and no `E2` (the lead byte of U+2028/U+2029) — is
    /// its own bytes between quotes; other text goes through `quote`, whose walk over
    /// Unicode scalars was 1.6 % of a study build (`RecallTableStreamTests`).
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        var s = s
        let plain = s.withUTF8 { u in !u.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 } }
        guard plain else { return out.append(contentsOf: JSONText.quote(s).utf8) }
        out.append(0x22)
        out.append(contentsOf: s.utf8)
        out.append(0x22)
    }

    /// The CSV bytes.
    var csvData: Data { csv.data }

    /// The CSV bytes of the rows alone (no header record).
    var csvRows: [UInt8] { Array(csv.data.dropFirst(csvHeaderCount)) }

    /// ``csvRows`` as `Data`, copied once (a participant's blocks).
    var csvRowsData: Data {
        let all = csv.data
        return csvHeaderCount == 0 ? all : Data(all.dropFirst(csvHeaderCount))
    }

    /// ``jsonRows`` as `Data`, copied once.
    var jsonRowsData: Data { Data(json[1...]) }

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
