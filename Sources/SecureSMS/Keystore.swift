import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TextBasics

// MARK: - The keystore file

/// The local account and its contacts, encrypted at rest (see docs/securesms-keystore.md).
///
/// The file is JSON: a clear envelope (format, scrypt parameters and salt, the password
/// verifier, the lockout counter) and the AES-256-GCM-sealed payload (account name and
/// contacts with their chain state). The lockout lives in the clear part so a wrong
/// password can be counted without the key; every change is saved atomically.
public struct Keystore: Sendable, CustomStringConvertible {
    public struct KDFParams: Codable, Sendable, Equatable {
        public var algorithm: String = "scrypt"
        public var log2n: Int
        public var r: Int
        public var p: Int
        public var salt: Data
        public init(log2n: Int, r: Int, p: Int, salt: Data) {
            self.log2n = log2n; self.r = r; self.p = p; self.salt = salt
        }
        /// Production cost: N = 2¹⁷, r = 8, p = 1 (128 MiB; OWASP's scrypt minimum).
        public static let standardLog2n = 17
        public static let log2nRange = 10...20
        public static let rRange = 1...32
        public static let pRange = 1...16
        public static let saltRange = 16...64
        /// Upper bounds of memory (128·r·N bytes) and work (p·r·N) a keystore may ask for.
        public static let maxMemory = 1 << 30
        public static let maxWork = 1 << 23

        public static func standard(salt: Data) -> KDFParams { KDFParams(log2n: standardLog2n, r: 8, p: 1, salt: salt) }

        /// Refuses parameters outside the bounds before any work is done: a keystore's
        /// clear envelope is input like any other (a huge `p` would hang, 2⁵³+1 trap).
        public func validate() throws {
            func out(_ field: String, _ v: Int, _ r: ClosedRange<Int>) -> SecureSMSError {
                .keystore("kdf.\(field) = \(v) is outside \(r.lowerBound)…\(r.upperBound)")
            }
            guard algorithm == "scrypt" else { throw SecureSMSError.keystore("kdf.algorithm must be \"scrypt\"") }
            guard KDFParams.log2nRange.contains(log2n) else { throw out("log2n", log2n, KDFParams.log2nRange) }
            guard KDFParams.rRange.contains(r) else { throw out("r", r, KDFParams.rRange) }
            guard KDFParams.pRange.contains(p) else { throw out("p", p, KDFParams.pRange) }
            guard KDFParams.saltRange.contains(salt.count) else {
                throw out("salt length", salt.count, KDFParams.saltRange)
            }
            guard 128 * r << log2n <= KDFParams.maxMemory else {
                throw SecureSMSError.keystore("kdf: 128·r·2^log2n bytes exceed the 1 GiB limit")
            }
            guard p * r << log2n <= KDFParams.maxWork else {
                throw SecureSMSError.keystore("kdf: p·r·2^log2n exceeds 2^23")
            }
        }
    }

    public struct Lockout: Codable, Sendable, Equatable {
        public var failures: Int = 0
        public var maxFailures: Int = 3
        public var lockSeconds: Int = 300
        public var lockedUntil: Date?

        public static let maxFailuresRange = 1...100
        public static let lockSecondsRange = 1...604_800

        func validate() throws {
            guard Lockout.maxFailuresRange.contains(maxFailures) else {
                throw SecureSMSError.keystore("lockout.max_failures is outside 1…100")
            }
            guard Lockout.lockSecondsRange.contains(lockSeconds) else {
                throw SecureSMSError.keystore("lockout.lock_seconds is outside 1…604800")
            }
            guard (0..<maxFailures).contains(failures) else {
                throw SecureSMSError.keystore("lockout.failures is outside 0…max_failures − 1")
            }
        }
    }

    struct Envelope: Codable {
        var format = "securesms-keystore"
        var version = 1
        var kdf: KDFParams
        var verifier: Data
        var lockout: Lockout
        var payload: Data
    }

    struct Payload: Codable {
        var account: String
        var createdAt: Date
        var passwordChangedAt: Date?
        var contacts: [Contact]
    }

    public let url: URL
    public var account: String
    public private(set) var createdAt: Date
    public private(set) var passwordChangedAt: Date?
    public var contacts: [Contact]
    public private(set) var lockout: Lockout
    private var kdf: KDFParams
    private var key: SymmetricKey
    private var verifier: Data
    /// The exclusive lock held while this value lives (when opened with `lockWait`).
    let lock: KeystoreLock?
    /// Opened for reading only: ``save()`` refuses.
    var readOnly = false

    public var description: String { "Keystore(\(contacts.count) contacts, keys redacted)" }

    // MARK: Create / open

    /// Creates a new keystore; refuses to overwrite an existing file.
    public static func create(at url: URL, account: String, password: String, lockSeconds: Int = 300,
                              kdf: KDFParams? = nil, now: Date = Date(), lockWait: Int? = nil) throws -> Keystore {
        let lock = try lockWait.map { try KeystoreLock(for: url, wait: $0) }
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw SecureSMSError.keystore("\(url.path): a keystore already exists (one account per keystore)")
        }
        guard !password.isEmpty else { throw SecureSMSError.keystore("the password must not be empty") }
        let params = kdf ?? .standard(salt: randomData(16))
        try params.validate()
        let lockout = Lockout(lockSeconds: lockSeconds)
        try lockout.validate()
        let (key, verifier) = try derive(password: password, params: params)
        var ks = Keystore(url: url, account: account, createdAt: now, passwordChangedAt: nil, contacts: [],
                          lockout: lockout, kdf: params, key: key, verifier: verifier, lock: lock)
        try ks.save()
        return ks
    }

    /// Opens a keystore with `password`. With `lockWait` it first takes the keystore's
    /// exclusive lock (waiting up to that many seconds) and holds it until the returned
    /// value is released — every command that may save passes it. Every try is counted
    /// *before* the password is checked (docs/securesms-keystore.md, "Lockout"): the
    /// envelope is saved with one more failure, then the verifier is derived; a right
    /// password saves the count back to 0 (and clears a lapsed lock), so a process killed
    /// during the check leaves its try counted. After `maxFailures` in a row the file is
    /// locked for `lockSeconds`, across restarts.
    ///
    /// `readOnly` (reports, `dossier check`) never saves the payload: it takes the lock
    /// only while it counts (waiting up to `lockWait`, else ``readOnlyLockWait`` seconds)
    /// and writes only the clear lockout part, as every open does — unless the keystore's
    /// folder may not be written (a read-only copy or mount): then it writes nothing at
    /// all, not even a lock file (``openUncounted(at:password:now:derive:)``).
    public static func open(at url: URL, password: String, now: Date = Date(), readOnly: Bool = false,
                            lockWait: Int? = nil) throws -> Keystore {
        try open(at: url, password: password, now: now, readOnly: readOnly, lockWait: lockWait, derive: derive)
    }

    /// Seconds a read-only open waits for the keystore's lock.
    public static let readOnlyLockWait = 30

    /// ``open(at:password:now:readOnly:lockWait:)`` with the key derivation passed in
    /// (tests observe what is on disk while it runs).
    static func open(at url: URL, password: String, now: Date, readOnly: Bool, lockWait: Int?,
                     derive: (String, KDFParams) throws -> (SymmetricKey, Data)) throws -> Keystore {
        if readOnly && !folderIsWritable(of: url) {
            return try openUncounted(at: url, password: password, now: now, derive: derive)
        }
        let lock: KeystoreLock?
        if readOnly { lock = try KeystoreLock(for: url, wait: lockWait ?? readOnlyLockWait) }
        else { lock = try lockWait.map { try KeystoreLock(for: url, wait: $0) } }
        if lock != nil { sweepTemporaryFiles(of: url) }
        let (read, original) = try readEnvelopeAndBytes(url)
        var env = read
        let nothingToReset = env.lockout.failures == 0 && env.lockout.lockedUntil == nil
        if let until = env.lockout.lockedUntil {
            if until > now { throw SecureSMSError.locked(until: until) }
            env.lockout.lockedUntil = nil   // lapsed: cleared below by a right password
        }
        // Count this try before the expensive check.
        var counted = env
        counted.lockout.failures += 1
        var remaining = counted.lockout.maxFailures - counted.lockout.failures
        if remaining <= 0 {
            counted.lockout.failures = 0
            counted.lockout.lockedUntil = now.addingTimeInterval(TimeInterval(counted.lockout.lockSeconds))
            remaining = 0
        }
        try writeEnvelope(counted, to: url)
        let (key, verifier) = try derive(password, env.kdf)
        guard SMSProtocol.constantTimeEqual(Array(verifier), Array(env.verifier)) else {
            throw SecureSMSError.wrongPassword(remaining: remaining)
        }
        env.lockout.failures = 0
        env.lockout.lockedUntil = nil
        // The try undone: the count as it was, minus a lapsed lock. With nothing to reset,
        // the file's own bytes go back, as another program wrote them (not re-encoded).
        if nothingToReset { try AtomicWrite.write(original, to: url) } else { try writeEnvelope(env, to: url) }
        return try unsealed(env, at: url, key: key, verifier: verifier, lock: readOnly ? nil : lock, readOnly: readOnly)
    }

    /// A read-only open of a keystore in a folder that may not be written
    /// (docs/securesms-keystore.md, "Read-only folders"): no lock is taken (saves replace
    /// the file by rename, so a reader sees the old or the new file whole), the try is not
    /// counted, and nothing is written. A lock that is set is still honoured.
    static func openUncounted(at url: URL, password: String, now: Date,
                              derive: (String, KDFParams) throws -> (SymmetricKey, Data)) throws -> Keystore {
        let env = try readEnvelope(url)
        if let until = env.lockout.lockedUntil, until > now { throw SecureSMSError.locked(until: until) }
        let (key, verifier) = try derive(password, env.kdf)
        guard SMSProtocol.constantTimeEqual(Array(verifier), Array(env.verifier)) else {
            throw SecureSMSError.wrongPasswordNotCounted
        }
        return try unsealed(env, at: url, key: key, verifier: verifier, lock: nil, readOnly: true)
    }

    /// Whether the keystore's folder is one to write: this process may create and rename
    /// files in it (a read-only file system may not), and its mode grants write permission
    /// to someone — a folder made read-only with `chmod a-w` stays so even for root.
    static func folderIsWritable(of url: URL) -> Bool {
        let folder = url.deletingLastPathComponent().path
        var st = stat()
        guard stat(folder, &st) == 0, st.st_mode & 0o222 != 0 else { return false }
        return faccessat(AT_FDCWD, folder, W_OK, AT_EACCESS) == 0
    }

    /// The keystore value of a checked envelope: its payload decrypted and decoded.
    static func unsealed(_ env: Envelope, at url: URL, key: SymmetricKey, verifier: Data, lock: KeystoreLock?,
                         readOnly: Bool) throws -> Keystore {
        let aad = associatedData(env.kdf)
        let sealed: Data
        do {
            let box = try AES.GCM.SealedBox(combined: env.payload)
            sealed = try AES.GCM.open(box, using: key, authenticating: aad)
        } catch {
            throw SecureSMSError.keystore("\(url.path): the keystore is damaged (payload does not verify)")
        }
        let payload: Payload
        do { payload = try decoder().decode(Payload.self, from: sealed) } catch {
            throw SecureSMSError.keystore("\(url.path): the keystore payload is not readable")
        }
        var ks = Keystore(url: url, account: payload.account, createdAt: payload.createdAt,
                          passwordChangedAt: payload.passwordChangedAt, contacts: payload.contacts,
                          lockout: env.lockout, kdf: env.kdf, key: key, verifier: verifier, lock: lock)
        ks.readOnly = readOnly
        return ks
    }

    /// Removes `.<name>.<pid>.<random>.tmp` files a killed save left beside the keystore
    /// (each holds an older copy, with chain keys that should be erased). Called only while
    /// holding the keystore's lock, so no running save's file is touched.
    static func sweepTemporaryFiles(of url: URL) {
        let dir = url.deletingLastPathComponent()
        let prefix = "." + url.lastPathComponent + "."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(4).split(
                separator: ".", omittingEmptySubsequences: false)
            guard middle.count == 2,
                middle.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
            else { continue }
            unlink(dir.appendingPathComponent(name).path)
        }
    }

    /// The lockout state, readable without the password (for messages and reports).
    public static func lockoutState(at url: URL) throws -> Lockout { try readEnvelope(url).lockout }

    // MARK: Changes

    /// The scrypt cost of this keystore (N = 2^log2n).
    public var kdfLog2n: Int { kdf.log2n }

    /// Replaces the password (new salt, new key; the cost stays unless `log2n` is given); saved at once.
    public mutating func changePassword(to newPassword: String, log2n: Int? = nil, now: Date = Date()) throws {
        guard !newPassword.isEmpty else { throw SecureSMSError.keystore("the password must not be empty") }
        var params = kdf
        params.salt = Keystore.randomData(16)
        if let log2n { params.log2n = log2n }
        try params.validate()
        (key, verifier) = try Keystore.derive(password: newPassword, params: params)
        kdf = params
        passwordChangedAt = now
        try save()
    }

    public func contactIndex(_ name: String) throws -> Int {
        if let i = contacts.firstIndex(where: { $0.name == name }) { return i }
        if let i = contacts.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) { return i }
        throw SecureSMSError.contact("no contact named '\(name)' (see `dossier sms contact list`)")
    }

    /// Seals the payload with a fresh nonce and replaces the file atomically.
    public mutating func save() throws {
        guard !readOnly else { throw SecureSMSError.keystore("\(url.path): opened read only; nothing may be saved") }
        let payload = Payload(
            account: account, createdAt: createdAt, passwordChangedAt: passwordChangedAt, contacts: contacts)
        let plain = try Keystore.encoder().encode(payload)
        let box = try AES.GCM.seal(
            plain, using: key, nonce: AES.GCM.Nonce(), authenticating: Keystore.associatedData(kdf))
        let env = Envelope(
            kdf: kdf, verifier: verifier,
            lockout: Lockout(
                failures: 0, maxFailures: lockout.maxFailures,
                lockSeconds: lockout.lockSeconds, lockedUntil: nil),
            payload: box.combined!)
        try Keystore.writeEnvelope(env, to: url)
        lockout = env.lockout
    }

    // MARK: Internals

    static func derive(password: String, params: KDFParams) throws -> (SymmetricKey, Data) {
        try params.validate()
        let master = try KDF.Scrypt.deriveKey(from: Array(password.nfc.utf8),
                                              salt: params.salt, outputByteCount: 32, rounds: 1 << params.log2n,
                                              blockSize: params.r, parallelism: params.p)
        func sub(_ info: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master, salt: [UInt8](), info: Array(info.utf8), outputByteCount: 32)
        }
        let verifier = sub("SecureSMS keystore verifier").withUnsafeBytes { Data($0) }
        return (sub("SecureSMS keystore key"), verifier)
    }

    static func associatedData(_ kdf: KDFParams) -> Data {
        Data("securesms-keystore/1 scrypt \(kdf.log2n) \(kdf.r) \(kdf.p) ".utf8) + kdf.salt
    }

    static func randomData(_ n: Int) -> Data {
        var rng = SystemRandomNumberGenerator()
        return Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}
