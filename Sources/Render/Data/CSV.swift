import Foundation

/// RFC 4180 CSV: fields separated by `,`, records ended by CRLF, UTF-8. A field is
/// quoted when it holds `,`, `"`, CR or LF, or begins or ends with a space; quotes inside
/// are doubled.
///
/// Formula injection: a cell whose text begins with `=`, `+`, `-`, `@`, TAB or CR is
/// prefixed with `'` so spreadsheet programs show it as text (OWASP's advice). Numbers
/// written with ``CSVWriter/number(_:)`` are never neutralised: `-3.5` stays a number.
public struct CSVWriter: Sendable {
    public enum Cell: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case text(String)
        /// A numeric cell, already formatted (see ``JSONValue/formatNumber(_:)``).
        case number(String)
        case empty

        public init(stringLiteral value: String) { self = .text(value) }
        public init(integerLiteral value: Int) { self = .number(String(value)) }
    }

    public var includeBOM: Bool
    public var neutraliseFormulas: Bool
    private var out: String

    /// - Parameters:
    ///   - header: the first record.
    ///   - includeBOM: start with U+FEFF so Excel reads UTF-8 (off by default).
    public init(header: [String]? = nil, includeBOM: Bool = false, neutraliseFormulas: Bool = true) {
        self.includeBOM = includeBOM
        self.neutraliseFormulas = neutraliseFormulas
        self.out = includeBOM ? "\u{FEFF}" : ""
        if let header { append(header.map { Cell.text($0) }) }
    }

    public static func number(_ d: Double?) -> Cell { d.map { .number(JSONValue.formatNumber($0)) } ?? .empty }
    public static func number(_ i: Int?) -> Cell { i.map { .number(String($0)) } ?? .empty }

    /// Appends one record.
    public mutating func append(_ cells: [Cell]) {
        var first = true
        for c in cells {
            if !first { out += "," }
            first = false
            switch c {
            case .empty: break
            case .number(let n): out += n
            case .text(let t): out += field(t)
            }
        }
        out += "\r\n"
    }

    /// Appends a record of text cells.
    public mutating func append(texts: [String]) { append(texts.map { .text($0) }) }

    func field(_ raw: String) -> String {
        var t = raw
        if neutraliseFormulas, let f = t.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(f) {
            t = "'" + t
        }
        let needsQuotes = t.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            || t.hasPrefix(" ") || t.hasSuffix(" ")
        if !needsQuotes { return t }
        return "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public var text: String { out }
    public var data: Data { Data(out.utf8) }
}

/// A small RFC 4180 reader (quoted fields, doubled quotes, CRLF or LF, multi-line
/// fields). Reports the 1-based line where each record starts.
public enum CSVReader {
    public struct Record: Sendable, Hashable {
        public var line: Int
        public var fields: [String]
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unterminatedQuote(line: Int)
        case textAfterQuote(line: Int)
        public var description: String {
            switch self {
            case .unterminatedQuote(let l): return "line \(l): a quoted field is never closed"
            case .textAfterQuote(let l): return "line \(l): text after a closing quote"
            }
        }
    }

    /// Parses `text` (a leading BOM is skipped).
    public static func parse(_ text: String) throws -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var line = 1
        var recordLine = 1
        var inQuotes = false
        var afterQuote = false
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        var it = scalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        var sawAny = false
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return it.next()
        }
        while let c = next() {
            sawAny = true
            if inQuotes {
                if c == "\"" {
                    if let n = next() {
                        if n == "\"" { field.unicodeScalars.append("\"") } else { inQuotes = false; afterQuote = true; pending = n }
                    } else { inQuotes = false; afterQuote = true }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case ",":
                fields.append(field); field = ""; afterQuote = false
            case "\r":
                if let n = next(), n != "\n" { pending = n }
                fallthrough
            case "\n":
                fields.append(field); field = ""; afterQuote = false
                records.append(Record(line: recordLine, fields: fields)); fields = []
                line += 1; recordLine = line
            case "\"" where field.isEmpty && !afterQuote:
                inQuotes = true
            default:
                if afterQuote { throw Failure.textAfterQuote(line: line) }
                field.unicodeScalars.append(c)
            }
        }
        if inQuotes { throw Failure.unterminatedQuote(line: recordLine) }
        if sawAny && (!field.isEmpty || !fields.isEmpty || afterQuote) {
            fields.append(field)
            records.append(Record(line: recordLine, fields: fields))
        }
        return records
    }
}
