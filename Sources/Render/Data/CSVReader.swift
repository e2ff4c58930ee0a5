#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

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
                        if n == "\"" {
                            field.unicodeScalars.append("\"")
                        } else {
                            inQuotes = false; afterQuote = true; pending = n
                        }
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
