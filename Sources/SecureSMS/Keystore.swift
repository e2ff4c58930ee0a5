import Crypto
import _CryptoExtras
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        /// Production cost: N = 2¹⁵, r = 8, p = 1 (32 MiB, ~0.1 s).
        public static func standard(salt: Data) -> KDFParams { KDFParams(log2n: 15, r: 8, p: 1, salt: salt) }
    }

    public struct Lockout: Codable, Sendable, Equatable {
        public var failures: Int = 0
        public var maxFailures: Int = 3
        public var lockSeconds: Int = 300
        public var lockedUntil: Date?
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

    public var description: String { "Keystore(\(contacts.count) contacts, keys redacted)" }

    // MARK: Create / open

    /// Creates a new keystore; refuses to overwrite an existing file.
    public static func create(at url: URL, account: String, password: String, lockSeconds: Int = 300,
                              kdf: KDFParams? = nil, now: Date = Date()) throws -> Keystore {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw SecureSMSError.keystore("\(url.path): a keystore already exists (one account per keystore)")
        }
        guard !password.isEmpty else { throw SecureSMSError.keystore("the password must not be empty") }
        let params = kdf ?? .standard(salt: randomData(16))
        let (key, verifier) = try derive(password: password, params: params)
        var ks = Keystore(url: url, account: account, createdAt: now, passwordChangedAt: nil, contacts: [],
                          lockout: Lockout(lockSeconds: lockSeconds), kdf: params, key: key, verifier: verifier)
        try ks.save()
        return ks
    }

    /// Opens a keystore with `password`. A wrong password is counted (and saved); after
    /// `maxFailures` in a row the file is locked for `lockSeconds`, across restarts.
    public static func open(at url: URL, password: String, now: Date = Date()) throws -> Keystore {
        var env = try readEnvelope(url)
        if let until = env.lockout.lockedUntil {
            if until > now { throw SecureSMSError.locked(until: until) }
            env.lockout.lockedUntil = nil
        }
        let (key, verifier) = try derive(password: password, params: env.kdf)
        guard SMSProtocol.constantTimeEqual(Array(verifier), Array(env.verifier)) else {
            env.lockout.failures += 1
            var remaining = env.lockout.maxFailures - env.lockout.failures
            if remaining <= 0 {
                env.lockout.failures = 0
                env.lockout.lockedUntil = now.addingTimeInterval(TimeInterval(env.lockout.lockSeconds))
                remaining = 0
            }
            try writeEnvelope(env, to: url)
            throw SecureSMSError.wrongPassword(remaining: remaining)
        }
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
        let needsSave = env.lockout.failures != 0
        env.lockout.failures = 0
        var ks = Keystore(url: url, account: payload.account, createdAt: payload.createdAt,
                          passwordChangedAt: payload.passwordChangedAt, contacts: payload.contacts,
                          lockout: env.lockout, kdf: env.kdf, key: key, verifier: verifier)
        if needsSave { try ks.save() }
        ks.lockout = env.lockout
        return ks
    }

    /// The lockout state, readable without the password (for messages and reports).
    public static func lockoutState(at url: URL) throws -> Lockout { try readEnvelope(url).lockout }

    // MARK: Changes

    /// Replaces the password (new salt, new key); saved at once.
    public mutating func changePassword(to newPassword: String, now: Date = Date()) throws {
        guard !newPassword.isEmpty else { throw SecureSMSError.keystore("the password must not be empty") }
        var params = kdf
        params.salt = Keystore.randomData(16)
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
        let payload = Payload(account: account, createdAt: createdAt, passwordChangedAt: passwordChangedAt, contacts: contacts)
        let plain = try Keystore.encoder().encode(payload)
        let box = try AES.GCM.seal(plain, using: key, nonce: AES.GCM.Nonce(), authenticating: Keystore.associatedData(kdf))
        let env = Envelope(kdf: kdf, verifier: verifier, lockout: Lockout(failures: 0, maxFailures: lockout.maxFailures,
                                                                              lockSeconds: lockout.lockSeconds, lockedUntil: nil),
                           payload: box.combined!)
        try Keystore.writeEnvelope(env, to: url)
        lockout = env.lockout
    }

    // MARK: Internals

    static func derive(password: String, params: KDFParams) throws -> (SymmetricKey, Data) {
        guard params.algorithm == "scrypt", (10...20).contains(params.log2n), params.r >= 1, params.p >= 1 else {
            throw SecureSMSError.keystore("unsupported key derivation parameters")
        }
        let master = try KDF.Scrypt.deriveKey(from: Array(password.precomposedStringWithCanonicalMapping.utf8),
                                              salt: params.salt, outputByteCount: 32, rounds: 1 << params.log2n,
                                              blockSize: params.r, parallelism: params.p)
        func sub(_ info: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: [UInt8](), info: Array(info.utf8), outputByteCount: 32)
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

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        e.keyEncodingStrategy = .convertToSnakeCase
        return e
    }

    static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }

    static func readEnvelope(_ url: URL) throws -> Envelope {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SecureSMSError.keystore("\(url.path): no keystore here (create one with `dossier sms init`)")
        }
        do {
            let env = try decoder().decode(Envelope.self, from: data)
            guard env.format == "securesms-keystore" else { throw SecureSMSError.keystore("") }
            guard env.version == 1 else { throw SecureSMSError.keystore("\(url.path): keystore version \(env.version) is not supported") }
            return env
        } catch let e as SecureSMSError where !e.description.isEmpty {
            throw e
        } catch {
            throw SecureSMSError.keystore("\(url.path): not a SecureSMS keystore")
        }
    }

    static func writeEnvelope(_ env: Envelope, to url: URL) throws {
        try AtomicWrite.write(try encoder().encode(env) + Data("\n".utf8), to: url)
    }
}

// MARK: - Atomic writes

/// Writes a file so that a crash leaves either the old or the new bytes: a temporary
/// file in the same folder (mode 0600), fsync, rename over the target, fsync the folder.
enum AtomicWrite {
    static func write(_ data: Data, to url: URL) throws {
        let dir = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = Glibc.open(tmp.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw SecureSMSError.keystore("\(dir.path): cannot write here (\(String(cString: strerror(errno))))") }
        var ok = data.withUnsafeBytes { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { return false }
                off += n
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        Glibc.close(fd)
        guard ok, rename(tmp.path, url.path) == 0 else {
            unlink(tmp.path)
            throw SecureSMSError.keystore("\(url.path): could not save (\(String(cString: strerror(errno))))")
        }
        let dfd = Glibc.open(dir.path, O_RDONLY)
        if dfd >= 0 { fsync(dfd); Glibc.close(dfd) }
    }
}
