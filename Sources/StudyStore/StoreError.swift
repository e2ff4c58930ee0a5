// MARK: - What went wrong with a store, said so that the user knows what to fix

/// An error of a study store. The message never holds a password: libpq's messages do
/// not echo one, URLs with a password are refused before any connection, and
/// ``StoreError/scrubbed(_:)`` removes `PGPASSWORD`'s value from any text shown.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// libpq is not installed.
        case missingClient
        /// The server could not be reached (host, port, network, server down).
        case unreachable
        /// The password was wrong or missing, or the user does not exist.
        case authentication
        /// The database does not exist on the server.
        case missingDatabase
        /// The connection was lost while in use (server stopped, network cut).
        case connectionLost
        /// A concurrent transaction conflicted (SQLSTATE 40001, 40P01): run it again.
        case retryable
        /// The database's schema is newer than this binary knows.
        case newerSchema
        /// A password where none may be (dossier.yml, a command line).
        case passwordGiven
        case other
    }

    public let kind: Kind
    public let message: String
    /// The SQLSTATE of a PostgreSQL error, "" otherwise.
    public let sqlState: String

    public init(_ kind: Kind, _ message: String, sqlState: String = "") {
        self.kind = kind
        self.message = StoreError.scrubbed(message)
        self.sqlState = sqlState
    }

    public var description: String { message }

    /// `text` with the value of `PGPASSWORD` (when set and at least 4 bytes) cut out.
    public static func scrubbed(_ text: String) -> String {
        guard let pw = environment("PGPASSWORD"), pw.utf8.count >= 4 else { return text }
        return replacingAll(text, pw, "(password)")
    }

    /// Every occurrence of `needle` in `text` replaced by `by`, byte for byte.
    static func replacingAll(_ text: String, _ needle: String, _ by: String) -> String {
        let t = Array(text.utf8), n = Array(needle.utf8)
        guard !n.isEmpty, t.count >= n.count else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(t.count)
        var i = 0
        while i < t.count {
            if i + n.count <= t.count && t[i] == n[0] && Array(t[i..<(i + n.count)]) == n {
                out.append(contentsOf: by.utf8)
                i += n.count
            } else {
                out.append(t[i]); i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An environment variable (getenv, without Foundation).
func environment(_ name: String) -> String? {
    guard let p = getenv(name) else { return nil }
    return String(cString: p)
}
