import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - A contact and its chains

/// One contact in the keystore: a name, dates, and the pair's chain state.
///
/// A contact is *pending* from `contact add` until the other person's key message is
/// entered and the safety numbers are confirmed; only then do chains exist. After that
/// the own private key is deleted: the chain keys are all that is kept, and each step
/// forward erases the previous one (forward secrecy).
public struct Contact: Codable, Sendable, CustomStringConvertible {
    public struct SendChain: Codable, Sendable {
        var chainKey: Data
        /// The counter the next message will carry.
        public var next: Int
    }

    public struct SkippedKey: Codable, Sendable {
        public var counter: Int
        var key: Data
    }

    public struct ReceiveChain: Codable, Sendable {
        var chainKey: Data
        /// The counter the chain key is at (one past the highest counter received).
        public var next: Int
        /// Message keys of counters skipped over (lost or late), oldest first.
        public var skipped: [SkippedKey]
    }

    /// Messages that may be missing between the expected counter and a new one.
    public static let maxSkip = 100
    /// Skipped keys kept per contact; beyond this the oldest are discarded.
    public static let maxStoredSkipped = 100
    /// `key_agreement` of chains agreed by X25519 (absent: the old contact codes).
    public static let x25519 = "x25519"

    public var name: String
    public var addedAt: Date
    public var resyncedAt: Date?
    /// This user's X25519 private key while an exchange is open (then deleted).
    var pendingKey: Data?
    /// A contact code of keystores written before X25519 (read only, never written again).
    var pendingCode: Data?
    /// How the chains were agreed: "x25519", or nil for the old contact codes.
    public internal(set) var keyAgreement: String?
    public internal(set) var send: SendChain?
    public internal(set) var receive: ReceiveChain?
    public internal(set) var sentCount: Int = 0
    public internal(set) var receivedCount: Int = 0
    /// Skipped keys dropped because the store was full (those messages can never be read).
    public internal(set) var discardedKeys: Int = 0
    public internal(set) var lastSentAt: Date?
    public internal(set) var lastReceivedAt: Date?

    public var isPending: Bool { send == nil }

    public var description: String { "Contact(\(name), \(isPending ? "pending" : "active"), keys redacted)" }

    /// A new pending contact with a fresh own key pair.
    public init(name: String, ownKey: Curve25519.KeyAgreement.PrivateKey = KeyExchange.generate(), now: Date) {
        self.name = name
        self.addedAt = now
        self.pendingKey = ownKey.rawRepresentation
    }

    var ownPrivateKey: Curve25519.KeyAgreement.PrivateKey? {
        pendingKey.flatMap { try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
    }

    /// The own public key to send while an exchange is open.
    public var ownPublicKey: [UInt8]? { ownPrivateKey.map { Array($0.publicKey.rawRepresentation) } }

    /// The key message to send while an exchange is open.
    public var ownKeyMessage: String? { ownPublicKey.map { KeyExchange.message(publicKey: $0) } }

    /// Chains agreed with the old contact codes (keystores before X25519): still usable,
    /// but anyone who heard both codes can derive them — resynchronise.
    public var usesLegacyCodes: Bool { send != nil && keyAgreement == nil }

    /// Starts (again) a key exchange: a fresh own key pair; chains are kept until it completes.
    public mutating func beginExchange(ownKey: Curve25519.KeyAgreement.PrivateKey = KeyExchange.generate()) {
        pendingKey = ownKey.rawRepresentation
        pendingCode = nil
    }

    /// Whether an exchange is open (a key message sent, the other's not yet confirmed).
    public var hasOpenExchange: Bool { ownPrivateKey != nil }

    public var isResyncing: Bool { (pendingKey != nil || pendingCode != nil) && send != nil }

    /// The safety number of this exchange with the other person's public key. A key that
    /// cannot agree keys (a low-order point: the shared secret would be all zero) is
    /// refused here, before any number is shown.
    public func safetyNumber(theirs: [UInt8]) throws -> String {
        guard let own = ownPublicKey else {
            throw SecureSMSError.contact(
                "no key exchange is open for \(name); run `contact add` or `contact resync` first")
        }
        guard own != theirs else {
            throw SecureSMSError.badKeyMessage("that is your own key message; paste the one the other person sent")
        }
        if let priv = ownPrivateKey { _ = try KeyExchange.chains(own: priv, theirs: theirs) }
        return KeyExchange.safetyNumber(own, theirs)
    }

    /// Completes the exchange once the safety number read from the other phone
    /// (`confirmed`) equals this one: derives both chains from zero, forgets the own
    /// private key and every old key. A mismatch changes nothing.
    public mutating func complete(theirs: [UInt8], confirmed: String, now: Date) throws {
        guard let own = ownPrivateKey else {
            throw SecureSMSError.contact(
                "no key exchange is open for \(name); run `contact add` or `contact resync` first")
        }
        let number = try safetyNumber(theirs: theirs)
        guard KeyExchange.matches(confirmed, number) else { throw SecureSMSError.safetyNumberMismatch(contact: name) }
        let chains = try KeyExchange.chains(own: own, theirs: theirs)
        let wasActive = send != nil
        send = SendChain(chainKey: Data(chains.send), next: 0)
        receive = ReceiveChain(chainKey: Data(chains.receive), next: 0, skipped: [])
        pendingKey = nil
        pendingCode = nil
        keyAgreement = Contact.x25519
        if wasActive || resyncedAt != nil { resyncedAt = now }
        discardedKeys = 0
    }

    // MARK: Messages

    /// Encrypts one message and moves the sending chain one step (the key is gone after).
    public mutating func encrypt(_ text: String, now: Date) throws -> String {
        guard var s = send else {
            throw SecureSMSError.contact("\(name) is waiting for the key exchange; finish it (`contact add`) first")
        }
        guard s.next <= SMSProtocol.maxCounter else { throw SecureSMSError.counterExhausted }
        let step = Chain.step(Array(s.chainKey))
        let message = try SMSProtocol.seal(text, counter: s.next, messageKey: step.messageKey)
        s.chainKey = Data(step.next)
        s.next += 1
        send = s
        sentCount += 1
        lastSentAt = now
        return message
    }

    /// Verifies and decrypts one message. On any failure nothing changes; on success the
    /// receiving chain moves past the counter (keeping keys of skipped counters) or the
    /// skipped key used is deleted — so the same message never decrypts twice.
    public mutating func decrypt(_ pasted: String, now: Date) throws -> String {
        guard var r = receive else {
            throw SecureSMSError.contact("\(name) is waiting for the key exchange; finish it (`contact add`) first")
        }
        let env = try SMSProtocol.parse(pasted)
        let n = env.counter
        let text: String
        var discarded = 0
        if n < r.next {
            guard let idx = r.skipped.firstIndex(where: { $0.counter == n }) else {
                throw SecureSMSError.replayed(counter: n)
            }
            text = try SMSProtocol.open(env, messageKey: Array(r.skipped[idx].key))
            r.skipped.remove(at: idx)
        } else {
            guard n - r.next <= Contact.maxSkip else {
                throw SecureSMSError.tooFarAhead(counter: n, expected: r.next, limit: Contact.maxSkip)
            }
            var ck = Array(r.chainKey)
            var newSkipped: [SkippedKey] = []
            for i in r.next..<n {
                let st = Chain.step(ck)
                newSkipped.append(SkippedKey(counter: i, key: Data(st.messageKey)))
                ck = st.next
            }
            let st = Chain.step(ck)
            text = try SMSProtocol.open(env, messageKey: st.messageKey)
            r.chainKey = Data(st.next)
            r.next = n + 1
            r.skipped += newSkipped
            if r.skipped.count > Contact.maxStoredSkipped {
                discarded = r.skipped.count - Contact.maxStoredSkipped
                r.skipped.removeFirst(discarded)
            }
        }
        receive = r
        receivedCount += 1
        discardedKeys += discarded
        lastReceivedAt = now
        return text
    }
}

// MARK: - Names on a terminal

extension Contact {
    /// Why `name` cannot be a contact's name, or nil: 1 to 64 characters, none of them a
    /// control character (Unicode Cc) or a direction control (U+200E, U+200F, U+202A–U+202E,
    /// U+2066–U+2069), which would reorder or hide what `contact list` prints.
    public static func problem(withName name: String) -> String? {
        guard !name.isEmpty, name.count <= 64 else { return "a contact name is 1 to 64 characters" }
        if name.unicodeScalars.contains(where: isHidden) {
            return "a contact name cannot hold control or text-direction characters"
        }
        return nil
    }

    /// `name` with each control or direction character written as `\u{XXXX}`: how a name
    /// read from a keystore is printed (one that was never checked cannot move the cursor
    /// or reorder a line).
    public static func printable(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: isHidden) else { return name }
        var out = ""
        for u in name.unicodeScalars {
            if isHidden(u) {
                let hex = String(u.value, radix: 16, uppercase: true)
                out += "\\u{" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    static func isHidden(_ u: Unicode.Scalar) -> Bool {
        u.properties.generalCategory == .control || u.value == 0x200E || u.value == 0x200F
            || (0x202A...0x202E).contains(u.value) || (0x2066...0x2069).contains(u.value)
    }
}
