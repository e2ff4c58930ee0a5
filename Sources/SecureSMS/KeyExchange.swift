import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - X25519 key agreement

/// The key exchange of a pair (see docs/securesms-protocol.md §4).
///
/// Each person's app makes an X25519 key pair and sends the public key in one SMS, the
/// *key message*: `SecureSMS-key:` followed by 40 safe-alphabet digits of
/// `public key (32 bytes) ‖ SHA-256("SecureSMS key v2" ‖ public key)[0..<2]`. Both
/// derive the two chains from the shared secret with HKDF, and both compare the
/// *safety number* (two 20-digit halves, one per public key) by voice or in person:
/// a substituted key changes the number on both phones.
public enum KeyExchange {
    /// Text every key message starts with (all characters are in the safe alphabet).
    public static let prefix = "SecureSMS-key:"
    /// Safe-alphabet digits after the prefix: 118⁴⁰ > 2²⁷² holds key ‖ check.
    public static let digits = 40
    static let checkInfo = Array("SecureSMS key v2".utf8)
    static let pairSalt = Array("SecureSMS v2 pair".utf8)
    static let chainInfo = Array("SecureSMS v2 chain".utf8)
    static let safetyInfo = Array("SecureSMS v2 safety number".utf8)

    /// A fresh private key from the system's secure random generator.
    public static func generate() -> Curve25519.KeyAgreement.PrivateKey { Curve25519.KeyAgreement.PrivateKey() }

    static func check(_ publicKey: [UInt8]) -> [UInt8] {
        Array(Array(SHA256.hash(data: checkInfo + publicKey))[0..<2])
    }

    /// The key message carrying `publicKey` (32 bytes).
    public static func message(publicKey: [UInt8]) -> String {
        precondition(publicKey.count == 32)
        guard let d = BaseN.encode(publicKey + check(publicKey), radix: SafeAlphabet.radix, digits: digits) else {
            preconditionFailure("272 bits always fit in 40 base-118 digits")
        }
        var out = String.UnicodeScalarView(prefix.unicodeScalars)
        for v in d { out.append(SafeAlphabet.characters[v]) }
        return String(out)
    }

    /// The public key in a pasted key message (NFC, whitespace ignored). Errors never
    /// repeat the message.
    public static func parse(_ pasted: String) throws -> [UInt8] {
        let cleaned = SafeAlphabet.cleaned(pasted)
        let head = Array(prefix.unicodeScalars)
        guard cleaned.starts(with: head) else {
            throw SecureSMSError.badKeyMessage("it does not start with \(prefix) (paste the whole key message)")
        }
        let body = Array(cleaned.dropFirst(head.count))
        guard body.count == digits else {
            throw SecureSMSError.badKeyMessage("expected \(digits) characters after \(prefix), got \(body.count)")
        }
        let parsed = SafeAlphabet.digits(body, offset: head.count)
        guard let values = parsed.digits else {
            throw SecureSMSError.badKeyMessage("character \(parsed.badPosition) is not in the SecureSMS alphabet")
        }
        guard let bytes = BaseN.decode(values, radix: SafeAlphabet.radix, byteCount: 34),
              check(Array(bytes[0..<32])) == Array(bytes[32..<34]) else {
            throw SecureSMSError.badKeyMessage("the check does not match — the message was damaged or mistyped")
        }
        return Array(bytes[0..<32])
    }

    /// The two initial chains (send, receive) of a pair.
    ///
    /// shared = X25519(own private, their public) (all-zero refused);
    /// CK₀(x → y) = HKDF-SHA256(ikm = shared, salt = "SecureSMS v2 pair",
    ///                          info = "SecureSMS v2 chain" ‖ pub_x ‖ pub_y, 32 bytes).
    public static func chains(
        own: Curve25519.KeyAgreement.PrivateKey, theirs: [UInt8]
    ) throws -> (send: [UInt8], receive: [UInt8]) {
        let mine = Array(own.publicKey.rawRepresentation)
        guard mine != theirs else {
            throw SecureSMSError.badKeyMessage("that is your own key message; paste the one the other person sent")
        }
        let shared: [UInt8]
        do {
            let pub = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: theirs)
            shared = try own.sharedSecretFromKeyAgreement(with: pub).withUnsafeBytes { Array($0) }
        } catch {
            throw SecureSMSError.badKeyMessage("the key is not usable (a low-order point)")
        }
        guard shared.contains(where: { $0 != 0 }) else {
            throw SecureSMSError.badKeyMessage("the key is not usable (a low-order point)")
        }
        func chain(_ from: [UInt8], _ to: [UInt8]) -> [UInt8] {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: shared), salt: pairSalt,
                                   info: chainInfo + from + to, outputByteCount: 32).withUnsafeBytes { Array($0) }
        }
        return (chain(mine, theirs), chain(theirs, mine))
    }

    /// One public key's half of the safety number: 20 digits, from
    /// h = SHA-512("SecureSMS v2 safety number" ‖ key) as four 5-digit groups
    /// (big-endian h[5i..<5i+5] mod 100 000, zero-padded).
    public static func safetyHalf(_ publicKey: [UInt8]) -> String {
        let h = Array(SHA512.hash(data: safetyInfo + publicKey))
        return (0..<4).map { i -> String in
            let v = h[(5 * i)..<(5 * i + 5)].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) } % 100_000
            let s = String(v)
            return String(repeating: "0", count: 5 - s.count) + s
        }.joined()
    }

    /// The safety number both phones show: the two halves, smaller first, in eight
    /// groups of five digits separated by spaces.
    public static func safetyNumber(_ a: [UInt8], _ b: [UInt8]) -> String {
        let halves = [safetyHalf(a), safetyHalf(b)].sorted()
        let all = Array(halves.joined())
        return stride(from: 0, to: all.count, by: 5).map { String(all[$0..<$0 + 5]) }.joined(separator: " ")
    }

    /// Whether a typed safety number equals `expected` (only the ASCII digits count, so
    /// spaces and dashes do not matter).
    public static func matches(_ typed: String, _ expected: String) -> Bool {
        func digitsOnly(_ s: String) -> [UInt8] { Array(s.utf8.filter { (0x30...0x39).contains($0) }) }
        return digitsOnly(typed) == digitsOnly(expected)
    }
}
