// MARK: - The one error of every JSON and JSON Lines reader (docs/json-lines.md)

/// Why a JSON text or a JSON Lines record was refused, at `file:line:column`.
///
/// `line` counts from 1 (the line of the file, blank lines included); `column` counts
/// Unicode characters from 1 at the start of that line (a byte-order mark is not
/// counted). Every reader of a JSON format — recall logs, game telemetry, experience
/// files — reports its syntax errors with this type; each domain copies it into its
/// own error so its commands print `file:line:column: message`.
public struct JSONLinesError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`.
    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// A problem found by ``JSONScanner`` at a byte offset of its buffer. The scanner turns
/// it into a ``JSONLinesError`` with ``JSONScanner/located(_:file:firstLine:)``, which
/// knows the line it was on.
public struct JSONScanProblem: Error, Sendable {
    public var offset: Int
    public var message: String

    @inlinable public init(at offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }
}

/// The limits every reader shares (docs/json-lines.md, "Strictness").
public enum JSONLimits {
    /// The most arrays and objects open at once, the outermost included.
    public static let depth = 32
    /// The longest line of a JSON Lines file, in bytes (its line break not counted).
    public static let lineBytes = 4 << 20
    /// The most digits before a number's fraction (no format holds a larger number;
    /// whole numbers are exact only up to 2⁵³ − 1 anyway).
    public static let integerDigits = 20
}
