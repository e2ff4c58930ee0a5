#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - A small RFC 4180 reader for the desktop files (the core has no renderer)

struct CSVRow {
    /// 1-based line where the record starts.
    var line: Int
    var fields: [String]
}

enum CSVLines {
    /// The longest record accepted, in bytes (a desktop row is under 200 bytes). Longer
    /// records are refused at once with their line, so a damaged or hostile file cannot
    /// make the reader spend unbounded time or memory on one line.
    static let maxRecordBytes = 65_536

    /// Parses CSV text: `,` separators, `"` quoting with `""` escapes, LF or CRLF records.
    static func parse(_ text: String, file: String) throws -> [CSVRow] {
        try parse(Data(text.utf8), file: file)
    }

    /// Reads a CSV file's bytes: strict UTF-8 (a bad byte is an error naming its line),
    /// records of at most ``maxRecordBytes`` bytes.
    static func load(_ url: URL, display name: String, what: String) throws -> [CSVRow] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw RecallError(file: name, "cannot read the \(what) file")
        }
        return try parse(data, file: name)
    }

    /// Parses CSV bytes (see ``parse(_:file:)-(String,_)``).
    static func parse(_ data: Data, file: String) throws -> [CSVRow] {
        var rows: [CSVRow] = []
        var field: [UInt8] = []
        var fields: [String] = []
        var line = 1
        var rowLine = 1
        var inQuotes = false
        var quotedStart = 0
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var i = 0
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true)
        }
        var recordStart = 0
        while i < bytes.count {
            let c = bytes[i]
            if i - recordStart > maxRecordBytes {
                throw RecallError(
                    file: file, line: rowLine,
                    "the record is longer than \(maxRecordBytes) bytes (a recall CSV row is a few hundred); the file "
                        + "is damaged or not a recall file"
                )
            }
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
                try checkUTF8(bytes, from: recordStart, to: i, firstLine: rowLine, file: file)
                endField()
                rows.append(CSVRow(line: rowLine, fields: fields))
                fields = []
                line += 1
                rowLine = line
                recordStart = i + 1
            default:
                field.append(c)
            }
            i += 1
        }
        if inQuotes { throw RecallError(file: file, line: quotedStart, "a quoted field is not closed") }
        try checkUTF8(bytes, from: recordStart, to: bytes.count, firstLine: rowLine, file: file)
        if !field.isEmpty || !fields.isEmpty {
            endField()
            rows.append(CSVRow(line: rowLine, fields: fields))
        }
        return rows
    }

    /// Throws `file:line: … not UTF-8` for the first bad byte of a record (its line
    /// counted from the record's first line).
    private static func checkUTF8(_ bytes: [UInt8], from: Int, to: Int, firstLine: Int, file: String) throws {
        try bytes.withUnsafeBufferPointer { p in
            guard let bad = UTF8Check.firstInvalid(p, from: from, to: to) else { return }
            var line = firstLine, lineStart = from
            for j in from..<(from + bad) where p[j] == 0x0A { line += 1; lineStart = j + 1 }
            throw RecallError(
                file: file, line: line, UTF8Check.notUTF8(byte: p[from + bad], column: from + bad - lineStart + 1))
        }
    }
}
