import Crypto
import Foundation

// MARK: - Contact codes

/// A contact code: 64 random bits and a 16-bit check, written as 16 Crockford base-32
/// characters in four groups (`7K3M-9QXD-2HFA-V0PE`): easy to read aloud, and a typo
/// is caught with probability 1 − 2⁻¹⁶.
///
/// bytes = random (8) ‖ SHA-256("SecureSMS code v1" ‖ random)[0..<2]; the 80 bits are
/// read MSB-first in 5-bit groups, each written with `0123456789ABCDEFGHJKMNPQRSTVWXYZ`.
/// Reading is case-insensitive, ignores `-` and spaces, and takes O as 0 and I, L as 1.
public struct ContactCode: Sendable, Equatable, CustomStringConvertible {
    /// The 10 code bytes (random ‖ check).
    public let bytes: [UInt8]

    static let symbols = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// Never prints the code (it is a secret); use ``formatted`` to show it to its owner.
    public var description: String { "ContactCode(redacted)" }

    public init(random: [UInt8]) {
        precondition(random.count == 8)
        bytes = random + ContactCode.check(random)
    }

    /// A fresh code from the system's secure random generator.
    public static func generate() -> ContactCode {
        var rng = SystemRandomNumberGenerator()
        return ContactCode(random: (0..<8).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    static func check(_ random: [UInt8]) -> [UInt8] {
        Array(Array(SHA256.hash(data: Array("SecureSMS code v1".utf8) + random))[0..<2])
    }

    /// `XXXX-XXXX-XXXX-XXXX`.
    public var formatted: String {
        var chars: [Character] = []
        for i in 0..<16 {
            var v = 0
            for k in 0..<5 {
                let bit = i * 5 + k
                v = (v << 1) | Int((bytes[bit / 8] >> (7 - bit % 8)) & 1)
            }
            chars.append(ContactCode.symbols[v])
        }
        return stride(from: 0, to: 16, by: 4).map { String(chars[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// Parses a typed code. Errors say what is wrong without repeating the code.
    public init(parsing text: String) throws {
        var values: [Int] = []
        for ch in text.uppercased() {
            if ch == "-" || ch == " " { continue }
            let c: Character = ch == "O" ? "0" : (ch == "I" || ch == "L") ? "1" : ch
            guard let v = ContactCode.symbols.firstIndex(of: c) else {
                throw SecureSMSError.badCode("only digits and letters (no U) are used, in four groups of four")
            }
            values.append(v)
        }
        guard values.count == 16 else { throw SecureSMSError.badCode("expected 16 characters, got \(values.count)") }
        var b = [UInt8](repeating: 0, count: 10)
        for (i, v) in values.enumerated() {
            for k in 0..<5 where (v >> (4 - k)) & 1 == 1 {
                let bit = i * 5 + k
                b[bit / 8] |= UInt8(0x80 >> (bit % 8))
            }
        }
        let random = Array(b[0..<8])
        guard ContactCode.check(random) == Array(b[8..<10]) else {
            throw SecureSMSError.badCode("the check does not match — a character was mistyped")
        }
        bytes = b
    }
}
