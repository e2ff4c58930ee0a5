#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - RFC 4180 reader

/// A small RFC 4180 CSV reader for the importers (the Vault core does not depend on
/// the renderer): comma-separated, `"`-quoted fields with `""` for a quote, CRLF or LF
/// line ends, line breaks allowed inside quoted fields, a leading UTF-8 BOM ignored.
public struct CSVTable: Sendable {
    /// One record and the 1-based line it starts on.
    public struct Row: Sendable {
        public var line: Int
        public var fields: [String]
    }
    public var rows: [Row]

    /// Parses `text`; `file` names the input in errors.
    public init(text: String, file: String? = nil) throws {
        var rows: [Row] = []
        var field = ""
        var fields: [String] = []
        var inQuotes = false
        var line = 1
        var rowLine = 1
        var quoteLine = 1
        var sawAny = false
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var k = 0
        func endRow() {
            fields.append(field)
            field = ""
            // a completely empty line is not a record
            if !(fields.count == 1 && fields[0].isEmpty && !sawAny) {
                rows.append(Row(line: rowLine, fields: fields))
            }
            fields = []
            sawAny = false
        }
        while k < chars.count {
            let c = chars[k]
            if inQuotes {
                if c == "\"" {
                    if k + 1 < chars.count && chars[k + 1] == "\"" {
                        field.unicodeScalars.append("\""); k += 2; continue
                    }
                    inQuotes = false
                } else {
                    if c == "\n" { line += 1 }
                    if c == "\r" && k + 1 < chars.count && chars[k + 1] == "\n" {
                        field.unicodeScalars.append("\r"); field.unicodeScalars.append("\n"); line += 1; k += 2;
                        continue
                    }
                    field.unicodeScalars.append(c)
                }
                k += 1
                continue
            }
            switch c {
            case "\"":
                inQuotes = true
                sawAny = true
                quoteLine = line
            case ",":
                fields.append(field)
                field = ""
                sawAny = true
            case "\r", "\n":
                if c == "\r" && k + 1 < chars.count && chars[k + 1] == "\n" { k += 1 }
                endRow()
                line += 1
                rowLine = line
            default:
                field.unicodeScalars.append(c)
                sawAny = true
            }
            k += 1
        }
        if inQuotes { throw VaultError(.invalidInput, "quoted field never closed", file: file, line: quoteLine) }
        if sawAny || !field.isEmpty || !fields.isEmpty { endRow() }
        self.rows = rows
    }
}
