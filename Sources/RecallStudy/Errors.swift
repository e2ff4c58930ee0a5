#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines

// MARK: - Errors and warnings of the recall core

/// A message about a place in a file, printed `file:line: message` (`file: message`
/// when it concerns the whole file).
public protocol LocatedMessage: CustomStringConvertible {
    var file: String { get }
    var line: Int? { get }
    /// The column of a JSON syntax error (docs/json-lines.md), else nil.
    var column: Int? { get }
    var message: String { get }
}

extension LocatedMessage {
    public var column: Int? { nil }

    /// `file:line: message`, `file:line:column: message` or `file: message`.
    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? "")\(column.map { ":\($0)" } ?? ""): \(message)"
    }
}

/// A problem with a recall input, located at `file:line` (line is 1-based; `nil` when
/// the problem concerns the whole file). The core never imports the pipeline: sections
/// and commands convert this into their own diagnostics.
public struct RecallError: Error, Sendable, Hashable, LocatedMessage {
    public var file: String
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// A log line that is not the JSON the reader accepts, at `file:line:column`.
    public init(_ e: JSONLinesError) { self.init(file: e.file, line: e.line, column: e.column, e.message) }
}

/// A problem that leaves the data usable: shown on the participant's report.
public struct RecallWarning: Sendable, Hashable, Codable, LocatedMessage {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }
}
