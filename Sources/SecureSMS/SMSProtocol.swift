import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Message format (version 2)

/// The SecureSMS message format, version 2 (see docs/securesms-protocol.md).
///
/// ```
/// message  = header (4 chars) ‖ body (156 chars)        — 160 safe-alphabet characters
/// header   = version digit ‖ counter as 3 base-118 digits (big-endian)
/// body     = (C ‖ T) as a 1072-bit big-endian integer in 156 base-118 digits
/// P        = 144 septets (plaintext ‖ ESC ‖ 0x00…, or 144 plaintext septets) packed MSB-first → 126 bytes
/// T        = HMAC-SHA256(macKey, version(1 byte) ‖ counter(4 bytes BE) ‖ P)[0..<8]   — the synthetic IV
/// C        = P XOR ChaCha20(encKey, nonce = T ‖ 00 00 00 00, block counter 0)        (RFC 8439)
/// encKey ‖ macKey = HKDF-SHA256(ikm: message key, salt: "", info: "SecureSMS v2 message", 64 bytes)
/// ```
///
/// The nonce is derived from the plaintext (SIV, as RFC 5297): a message key used twice
/// — a restored keystore backup — reveals only whether the two plaintexts are equal.
public enum SMSProtocol {
    public static let version = 2
    /// Plaintext capacity in septets (DC1: 144).
    public static let maxPlainSeptets = 144
    /// Length of every message in characters (one SMS).
    public static let messageLength = 160
    public static let headerLength = 4
    public static let bodyLength = 156
    public static let plainBytes = 126          // 144 × 7 bits
    public static let tagBytes = 8              // 64-bit truncated HMAC-SHA256
    public static var bodyBytes: Int { plainBytes + tagBytes }
    /// Largest counter a 3-digit header holds: 118³ − 1.
    public static var maxCounter: Int { SafeAlphabet.radix * SafeAlphabet.radix * SafeAlphabet.radix - 1 }
    static let messageInfo = Array("SecureSMS v2 message".utf8)

    // MARK: Padding and packing

    /// The 144-septet padded block: the plaintext's septets, then (when shorter) ESC and zeros.
    /// A plaintext ESC is always followed by an extension code (never 0x00), so a lone
    /// ESC or ESC 0x00 marks the end unambiguously.
    public static func pad(_ septets: [UInt8]) throws -> [UInt8] {
        guard septets.count <= maxPlainSeptets else {
            throw SecureSMSError.tooLong(septets: septets.count, limit: maxPlainSeptets)
        }
        var out = septets
        if out.count < maxPlainSeptets {
            out.append(GSMAlphabet.escape)
            out += [UInt8](repeating: 0, count: maxPlainSeptets - out.count)
        }
        return out
    }

    /// Inverse of ``pad(_:)``; rejects anything ``pad(_:)`` would not produce.
    public static func unpad(_ block: [UInt8]) throws -> [UInt8] {
        guard block.count == maxPlainSeptets else { throw SecureSMSError.malformedPlaintext }
        var i = 0
        while i < block.count {
            if block[i] == GSMAlphabet.escape {
                if i + 1 < block.count, GSMAlphabet.extensionTable[block[i + 1]] != nil { i += 2; continue }
                // terminator: everything after must be zero
                guard block[(i + 1)...].allSatisfy({ $0 == 0 }) else { throw SecureSMSError.malformedPlaintext }
                return Array(block[..<i])
            }
            i += 1
        }
        return block
    }

    /// 144 septets → 126 bytes: septet i is bits 7i…7i+6 of a big-endian bit string.
    public static func pack(_ septets: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: (septets.count * 7 + 7) / 8)
        var bit = 0
        for s in septets {
            for k in stride(from: 6, through: 0, by: -1) {
                if (s >> k) & 1 == 1 { out[bit / 8] |= UInt8(0x80 >> (bit % 8)) }
                bit += 1
            }
        }
        return out
    }

    /// Inverse of ``pack(_:)``.
    public static func unpack(_ bytes: [UInt8], count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var bit = 0
        for _ in 0..<count {
            var v: UInt8 = 0
            for _ in 0..<7 {
                v = (v << 1) | ((bytes[bit / 8] >> (7 - bit % 8)) & 1)
                bit += 1
            }
            out.append(v)
        }
        return out
    }

    // MARK: Keys

    /// The two per-message keys derived from one chain message key.
    public struct MessageKeys: Sendable, CustomStringConvertible {
        public var encryption: [UInt8]
        public var mac: [UInt8]
        /// Never prints the keys.
        public var description: String { "MessageKeys(redacted)" }
    }

    public static func messageKeys(_ messageKey: [UInt8]) -> MessageKeys {
        let okm = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: messageKey), salt: [UInt8](),
                                         info: messageInfo, outputByteCount: 64)
        let b = okm.withUnsafeBytes { Array($0) }
        return MessageKeys(encryption: Array(b[0..<32]), mac: Array(b[32..<64]))
    }

    static func headerBytes(counter: Int) -> [UInt8] {
        [
            UInt8(version), UInt8((counter >> 24) & 0xFF), UInt8((counter >> 16) & 0xFF), UInt8((counter >> 8) & 0xFF),
            UInt8(counter & 0xFF)
        ]
    }

    /// `data` XOR ChaCha20(encKey, nonce = tag ‖ 00 00 00 00, block counter 0).
    static func keystream(_ data: [UInt8], _ k: MessageKeys, tag: [UInt8]) -> [UInt8] {
        // ChaCha20 (RFC 8439) with a 96-bit nonce and block counter 0; swift-crypto puts it under `Insecure`
        // because it is unauthenticated — the synthetic IV (an HMAC of the plaintext) is what authenticates it.
        let out = try! Insecure.ChaCha20CTR.encrypt(data, using: SymmetricKey(data: k.encryption),
                                                     nonce: try! Insecure.ChaCha20CTR.Nonce(data: tag + [0, 0, 0, 0]))
        return Array(out)
    }

    /// The synthetic IV: HMAC-SHA256(macKey, version ‖ counter ‖ P), first 8 bytes.
    static func syntheticIV(_ k: MessageKeys, counter: Int, plaintext: [UInt8]) -> [UInt8] {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: k.mac))
        mac.update(data: headerBytes(counter: counter))
        mac.update(data: plaintext)
        return Array(Array(mac.finalize())[0..<tagBytes])
    }

    // MARK: Seal / open

    /// Encrypts `text` as message number `counter` with the chain's message key.
    public static func seal(_ text: String, counter: Int, messageKey: [UInt8]) throws -> String {
        guard counter >= 0 && counter <= maxCounter else { throw SecureSMSError.counterExhausted }
        let block = try pad(GSMAlphabet.septets(text))
        let k = messageKeys(messageKey)
        let p = pack(block)
        let t = syntheticIV(k, counter: counter, plaintext: p)
        let body = keystream(p, k, tag: t) + t
        let n = SafeAlphabet.radix
        guard let bodyDigits = BaseN.encode(body, radix: n, digits: bodyLength) else {
            preconditionFailure("1072 bits always fit in 156 base-118 digits")
        }
        let header = [version, counter / (n * n), (counter / n) % n, counter % n]
        var out = String.UnicodeScalarView()
        for d in header + bodyDigits { out.append(SafeAlphabet.characters[d]) }
        return String(out)
    }

    /// A message's version, counter and body bytes, before anything is verified.
    public struct Envelope: Sendable, Equatable {
        public var version: Int
        public var counter: Int
        public var ciphertext: [UInt8]
        public var tag: [UInt8]
    }

    /// Parses a pasted message: NFC-normalises it and drops whitespace (apps wrap lines
    /// and add spaces), then expects exactly 160 safe-alphabet characters.
    public static func parse(_ pasted: String) throws -> Envelope {
        let cleaned = SafeAlphabet.cleaned(pasted)
        guard cleaned.count == messageLength else {
            throw SecureSMSError.badMessageFormat(
                "expected \(messageLength) characters (spaces and line breaks ignored), got \(cleaned.count)")
        }
        let parsed = SafeAlphabet.digits(cleaned)
        guard let digits = parsed.digits else {
            throw SecureSMSError.badMessageFormat("character \(parsed.badPosition) is not in the SecureSMS alphabet")
        }
        guard digits[0] == version else { throw SecureSMSError.unsupportedVersion(digits[0]) }
        let n = SafeAlphabet.radix
        let counter = (digits[1] * n + digits[2]) * n + digits[3]
        guard let body = BaseN.decode(Array(digits[headerLength...]), radix: n, byteCount: bodyBytes) else {
            throw SecureSMSError.verificationFailed  // a value above 2^1072 can only be damage
        }
        return Envelope(version: digits[0], counter: counter, ciphertext: Array(body[0..<plainBytes]),
                        tag: Array(body[plainBytes...]))
    }

    /// Verifies and decrypts an envelope with the message key for its counter.
    public static func open(_ e: Envelope, messageKey: [UInt8]) throws -> String {
        let k = messageKeys(messageKey)
        let p = keystream(e.ciphertext, k, tag: e.tag)
        let expected = syntheticIV(k, counter: e.counter, plaintext: p)
        guard constantTimeEqual(expected, e.tag) else { throw SecureSMSError.verificationFailed }
        return try GSMAlphabet.text(unpad(unpack(p, count: maxPlainSeptets)))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var d: UInt8 = 0
        for i in a.indices { d |= a[i] ^ b[i] }
        return d == 0
    }
}
