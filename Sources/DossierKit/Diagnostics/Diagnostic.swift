#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Diagnostic

/// One message about an input: where it is (`file:line`) and what is wrong.
///
/// Diagnostics are values: domain code returns them, the pipeline prints them as
/// `file:line: message` and sections may show warnings on the pages they concern.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Codable { case error, warning, note }

    public var severity: Severity
    /// Path of the input file, relative to the project folder when it lies inside it.
    public var file: String?
    /// 1-based line number, if known.
    public var line: Int?
    /// 1-based column (Unicode characters) of a JSON syntax error (docs/json-lines.md).
    public var column: Int?
    public var message: String

    public init(_ severity: Severity = .error, file: String? = nil, line: Int? = nil, column: Int? = nil,
                _ message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// An error with no location.
    public init(_ message: String) { self.init(.error, file: nil, line: nil, message) }

    public static func warning(file: String? = nil, line: Int? = nil, _ message: String) -> Diagnostic {
        Diagnostic(.warning, file: file, line: line, message)
    }

    /// `file:line: message`, `file:line:column: message`, `file: message` or `message`
    /// (warnings say so).
    public var description: String {
        var location = ""
        if let file {
            location = file
            if let line { location += ":\(line)" }
            if line != nil, let column { location += ":\(column)" }
            location += ": "
        }
        let prefix = severity == .warning ? "warning: " : (severity == .note ? "note: " : "")
        return location + prefix + message
    }
}

// MARK: - DossierError

/// The one error type the pipeline reports to a person: a list of diagnostics.
/// The CLI prints each on its own line and exits with status 1.
public struct DossierError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    public init(file: String? = nil, line: Int? = nil, column: Int? = nil, _ message: String) {
        self.diagnostics = [Diagnostic(.error, file: file, line: line, column: column, message)]
    }

    public init(file: URL, line: Int? = nil, _ message: String) {
        self.init(file: file.path, line: line, message)
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
    public var errorDescription: String? { description }
}

extension Error {
    /// Turns any error into diagnostics a person can read (never a stack trace).
    public var diagnostics: [Diagnostic] {
        if let e = self as? DossierError { return e.diagnostics }
        if let e = FileSystemErrors.describe(self) { return e.diagnostics }
        return [Diagnostic(String(describing: self))]
    }
}
