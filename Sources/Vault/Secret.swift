#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Secret

/// A secret string (master password, entry password, note text) that cannot be printed
/// by accident: `description`, `debugDescription` and string interpolation all give
/// `"•••"`. Read the value only through ``reveal``.
///
/// `Secret` encodes as its plain string (it is stored *inside* the encrypted vault
/// payload only); report models never contain a `Secret`.
public struct Secret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
                      CustomReflectable, ExpressibleByStringLiteral {
    private let value: String

    public init(_ value: String) { self.value = value }
    public init(stringLiteral value: String) { self.value = value }

    /// The secret itself. Every call site is a place a secret can leave: keep them few.
    public var reveal: String { value }
    public var isEmpty: Bool { value.isEmpty }
    public var utf8: Data { Data(value.utf8) }
    /// Whether the bytes are already in Unicode NFC (Swift's `==` would call canonically
    /// equivalent forms equal, so the UTF-8 bytes are compared).
    public var isNFC: Bool { value.utf8.elementsEqual(value.nfc.utf8) }

    public var description: String { "•••" }
    public var debugDescription: String { "Secret(•••)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    public init(from decoder: Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }
}

/// Raw key bytes (a derived key) with a redacted description.
public struct SecretBytes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    public let bytes: Data
    public init(_ bytes: Data) { self.bytes = bytes }
    public var description: String { "SecretBytes(\(bytes.count) bytes, •••)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
