import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A SHA-256 as manifests and the build state write it — 64 lower-case hex digits —
/// held as its 32 bytes. As text each was 112 bytes of heap, and a build holds one per
/// output file until it ends (five a study participant; docs/incremental.md, "Round
/// seven: memory").
///
/// Any other text (a manifest written elsewhere, upper-case digits, a test's `"ab"`) is
/// kept as it is, so ``hex`` always gives back the text a digest was made from, and two
/// digests are equal exactly when their texts are.
public struct HexDigest: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Storage: Hashable, Sendable {
        /// The bytes as four big-endian words (the first byte is the first word's highest).
        case bytes(UInt64, UInt64, UInt64, UInt64)
        case text(String)
    }
    private var storage: Storage

    /// The digest whose text is `hex`.
    public init(_ hex: String) {
        storage = Self.words(hex).map { .bytes($0.0, $0.1, $0.2, $0.3) } ?? .text(hex)
    }

    public init(stringLiteral text: String) { self.init(text) }

    /// The digest of 32 bytes (a SHA-256 as swift-crypto returns it).
    public init(bytes raw: UnsafeRawBufferPointer) {
        precondition(raw.count == 32, "a SHA-256 has 32 bytes")
        func word(_ i: Int) -> UInt64 { UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) }
        storage = .bytes(word(0), word(1), word(2), word(3))
    }

    /// The SHA-256 of `bytes`.
    public init(sha256 bytes: UnsafeRawBufferPointer) {
        self = SHA256.hash(data: bytes).withUnsafeBytes { HexDigest(bytes: $0) }
    }

    /// The digest `hasher` ends with.
    public init(_ hasher: SHA256) {
        self = hasher.finalize().withUnsafeBytes { HexDigest(bytes: $0) }
    }

    /// The text: 64 lower-case hex digits (or the text it was made from, see above).
    public var hex: String {
        switch storage {
        case .text(let s): return s
        case .bytes(let a, let b, let c, let d):
            return String(unsafeUninitializedCapacity: 64) { out in
                let digits = ("0123456789abcdef" as StaticString).utf8Start
                func put(_ w: UInt64, at start: Int) {
                    for j in 0..<16 { out[start + j] = digits[Int((w >> UInt64(60 - 4 * j)) & 15)] }
                }
                put(a, at: 0); put(b, at: 16); put(c, at: 32); put(d, at: 48)
                return 64
            }
        }
    }

    public var description: String { hex }

    /// The four words of 64 lower-case hex digits, or nil for any other text.
    private static func words(_ hex: String) -> (UInt64, UInt64, UInt64, UInt64)? {
        guard hex.utf8.count == 64 else { return nil }
        var w: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var i = 0
        for ch in hex.utf8 {
            let v: UInt8
            switch ch {
            case 0x30...0x39: v = ch - 0x30          // 0-9
            case 0x61...0x66: v = ch - 0x61 + 10     // a-f
            default: return nil
            }
            switch i >> 4 {
            case 0: w.0 = w.0 << 4 | UInt64(v)
            case 1: w.1 = w.1 << 4 | UInt64(v)
            case 2: w.2 = w.2 << 4 | UInt64(v)
            default: w.3 = w.3 << 4 | UInt64(v)
            }
            i += 1
        }
        return w
    }
}

/// Coded as its text (``hex``), as manifests write a SHA-256.
extension HexDigest: Codable {
    public init(from decoder: Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}
