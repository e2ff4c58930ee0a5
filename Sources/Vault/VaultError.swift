#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Errors from the Vault core. They carry a file and line where one applies and never
/// contain a secret (no password, note text or key is ever put in a message).
public struct VaultError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable { case wrongPassword, corrupt, truncated, unsupported, invalidInput, io }
    public var kind: Kind
    public var file: String?
    public var line: Int?
    /// The column of a JSON syntax error (docs/json-lines.md, "Positions"), else nil.
    public var column: Int?
    public var message: String

    public init(_ kind: Kind, _ message: String, file: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String {
        var s = ""
        if let file {
            s = file + (line.map { ":\($0)" } ?? "") + (line == nil ? "" : column.map { ":\($0)" } ?? "") + ": "
        }
        return s + message
    }
}
