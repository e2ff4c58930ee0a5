import Foundation

// MARK: - A contact and its chains

/// One contact in the keystore: a name, dates, and the pair's chain state.
///
/// A contact is *pending* from `contact add` until the other person's code is entered;
/// only then do chains exist. After that the own code is deleted: the chain keys are
/// all that is kept, and each step forward erases the previous one (forward secrecy).
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

    public var name: String
    public var addedAt: Date
    public var resyncedAt: Date?
    /// This user's code while waiting for the other's (then deleted).
    var pendingCode: Data?
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

    /// A new pending contact holding a fresh own code.
    public init(name: String, ownCode: ContactCode, now: Date) {
        self.name = name
        self.addedAt = now
        self.pendingCode = Data(ownCode.bytes)
    }

    /// The own code to show while pending.
    public var ownCode: ContactCode? {
        pendingCode.map { ContactCode(random: Array($0.prefix(8))) }
    }

    /// Starts (again) a code exchange: a fresh own code, chains kept until completed.
    public mutating func beginResync(ownCode: ContactCode) {
        pendingCode = Data(ownCode.bytes)
    }

    public var isResyncing: Bool { pendingCode != nil && send != nil }

    /// Completes the exchange with the other person's code: derives both chains from
    /// zero, forgets the own code and every old key.
    public mutating func complete(theirs: ContactCode, now: Date) throws {
        guard let own = ownCode else { throw SecureSMSError.contact("no code exchange is in progress for \(name)") }
        guard own.bytes != theirs.bytes else {
            throw SecureSMSError.badCode("that is your own code; enter the code shown on the other person's phone")
        }
        let wasActive = send != nil
        let chains = Chain.initialChains(own: own, theirs: theirs)
        send = SendChain(chainKey: Data(chains.send), next: 0)
        receive = ReceiveChain(chainKey: Data(chains.receive), next: 0, skipped: [])
        pendingCode = nil
        if wasActive || resyncedAt != nil { resyncedAt = now }
        discardedKeys = 0
    }

    // MARK: Messages

    /// Encrypts one message and moves the sending chain one step (the key is gone after).
    public mutating func encrypt(_ text: String, now: Date) throws -> String {
        guard var s = send else { throw SecureSMSError.contact("\(name) is waiting for their code; finish `contact add` first") }
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
        guard var r = receive else { throw SecureSMSError.contact("\(name) is waiting for their code; finish `contact add` first") }
        let env = try SMSProtocol.parse(pasted)
        let n = env.counter
        let text: String
        var discarded = 0
        if n < r.next {
            guard let idx = r.skipped.firstIndex(where: { $0.counter == n }) else { throw SecureSMSError.replayed(counter: n) }
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
