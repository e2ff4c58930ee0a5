import Foundation

// MARK: - A small RFC 4180 reader for the desktop files (the core has no renderer)

struct CSVRow {
    /// 1-based line where the record starts.
    var line: Int
    var fields: [String]
}

enum CSVLines {
    /// Parses CSV text: `,` separators, `"` quoting with `""` escapes, LF or CRLF records.
    static func parse(_ text: String, file: String) throws -> [CSVRow] {
        var rows: [CSVRow] = []
        var field: [UInt8] = []
        var fields: [String] = []
        var line = 1
        var rowLine = 1
        var inQuotes = false
        var quotedStart = 0
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var i = 0
        func endField() { fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true) }
        while i < bytes.count {
            let c = bytes[i]
            if inQuotes {
                if c == 0x22 {
                    if i + 1 < bytes.count, bytes[i + 1] == 0x22 { field.append(0x22); i += 2; continue }
                    inQuotes = false
                } else {
                    if c == 0x0A { line += 1 }
                    field.append(c)
                }
                i += 1
                continue
            }
            switch c {
            case 0x22 where field.isEmpty:
                inQuotes = true
                quotedStart = line
            case 0x2C:
                endField()
            case 0x0D where i + 1 < bytes.count && bytes[i + 1] == 0x0A:
                break
            case 0x0A:
                endField()
                rows.append(CSVRow(line: rowLine, fields: fields))
                fields = []
                line += 1
                rowLine = line
            default:
                field.append(c)
            }
            i += 1
        }
        if inQuotes { throw RecallError(file: file, line: quotedStart, "a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty {
            endField()
            rows.append(CSVRow(line: rowLine, fields: fields))
        }
        return rows
    }
}
