// Compiled only with the game domain.
#if DOMAIN_GAME
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import GameAnalytics
import Privacy
import StudyStore
import TextBasics

// MARK: - `game: privacy:` (docs/game-privacy.md, "Configuration")

/// The public game site's privacy settings and its secret key.
///
/// ```yaml
/// game:
///   privacy:
///     epsilon: 6              # ε spent by one public release (default 6)
///     delta: 0                # δ (default 0: every mechanism is pure ε-DP)
///     lifetime_epsilon: 18    # total ε `dossier publish` may record (default 3 × epsilon)
///     key_file: .dossier/privacy.key   # the secret noise key (created when missing)
/// ```
struct GamePrivacySettings: Sendable, CustomStringConvertible {
    var epsilonMilli = 6000
    var delta = "0"
    var lifetimeMilli = 18000
    /// The noise key: never printed, logged or written into the site. Empty until
    /// ``loaded(checkOnly:)`` (reading the configuration writes nothing, so `dossier check` doesn't).
    private(set) var key = Data()
    /// The key file of a project on JSON Lines telemetry, and with a database the old place
    /// of its key (moved into the database by the next build); its path as shown in messages.
    let keyURL: URL
    let keyShown: String
    /// The study database that holds the key and the ledger (nil: JSON Lines telemetry, or
    /// no game ingested yet), and the project's own `privacy-ledger.txt`.
    let database: StoreLocation?
    let databaseShown: String
    let projectLedger: URL
    /// The database's public name (``PrivacyKeyRecord/databaseID``), once its key is loaded.
    private(set) var databaseID: String?

    var description: String {
        "GamePrivacySettings(epsilon: \(PrivacyNumber.text(milli: epsilonMilli)), key: <redacted>)"
    }

    static let keys: Set<String> = ["epsilon", "delta", "lifetime_epsilon", "key_file"]

    init(config: SectionConfig, project: Project, database: StoreLocation? = nil) throws {
        var keyPath = project.stateFolder.appendingPathComponent("privacy.key")
        if let node = config.value("privacy") {
            guard case .map(let entries, _) = node else {
                throw config.error("privacy", "expected keys epsilon, delta, lifetime_epsilon, key_file")
            }
            let sub = SectionConfig(key: "game.privacy", file: config.file, root: config.root, node: node)
            for e in entries where !Self.keys.contains(e.key) {
                throw DossierError(file: config.file, line: e.keyLine,
                                   "game.privacy: unknown key '\(e.key)' "
                                    + "(known: epsilon, delta, lifetime_epsilon, key_file)")
            }
            func eps(_ name: String, _ def: Int) throws -> Int {
                guard let s = try sub.string(name) else { return def }
                guard let m = PrivacyNumber.milli(s), m > 0, m <= 100_000 else {
                    throw sub.error(name, "expected a positive number up to 100 with at most 3 decimals, got '\(s)'")
                }
                return m
            }
            epsilonMilli = try eps("epsilon", 6000)
            // Without a lifetime budget: three releases at this ε (18 at the default 6).
            lifetimeMilli = try eps("lifetime_epsilon", 3 * epsilonMilli)
            if let d = try sub.string("delta") {
                guard let v = Double(d), v >= 0, v < 1 else {
                    throw sub.error("delta", "expected a number in [0, 1), got '\(d)'")
                }
                delta = d
            }
            if lifetimeMilli < epsilonMilli {
                throw sub.error("lifetime_epsilon",
                                "is smaller than one release's epsilon (\(PrivacyNumber.text(milli: epsilonMilli)))")
            }
            if let k = try sub.string("key_file") { keyPath = sub.resolve(k) }
        }
        keyURL = keyPath
        keyShown = project.display(keyPath)
        self.database = database
        databaseShown = database.map { GameSection.shown($0, project) } ?? ""
        projectLedger = project.root.appendingPathComponent(PrivacyLedgerHook.fileName)
        // A key that exists must be valid: say so before anything is built.
        if let database {
            if let rec = try Self.storedKey(database, shown: databaseShown) {
                key = try Self.parseKey(rec.keyHex, shown: databaseShown + " (table privacy_key)", line: nil)
                databaseID = rec.databaseID
                lifetimeMilli = min(lifetimeMilli, rec.lifetimeMilli)
                return
            }
        }
        if FileManager.default.fileExists(atPath: keyPath.path) { key = try Self.loadKey(keyPath, shown: keyShown) }
    }

    /// The default settings with a given key (benchmarks and tests).
    init(key: Data) {
        self.key = key
        keyURL = URL(fileURLWithPath: "/dev/null")
        keyShown = "(given key)"
        database = nil
        databaseShown = ""
        projectLedger = URL(fileURLWithPath: "/dev/null")
    }

    static func storedKey(_ database: StoreLocation, shown: String) throws -> PrivacyKeyRecord? {
        do { return try StudyDatabase(location: database, create: false).privacyKey() } catch {
            throw DossierError(file: shown, error.message)
        }
    }

    /// These settings with the key read, or made when missing (at build time only; `dossier
    /// check` uses a throw-away key instead and writes nothing), and what to tell the user.
    /// With a database the key lives in it: a key in the old place (``keyURL``) is moved
    /// there; a database or project whose ledger already records a release never gets a
    /// fresh key (that would draw fresh noise over data already released).
    func loaded(checkOnly: Bool) throws -> (settings: GamePrivacySettings, notes: [String]) {
        var s = self
        let fm = FileManager.default
        guard let database else {
            if checkOnly && !fm.fileExists(atPath: keyURL.path) {
                s.key = Self.freshKey()
            } else {
                s.key = try Self.loadKey(keyURL, shown: keyShown)
            }
            return (s, [])
        }
        if let rec = try Self.storedKey(database, shown: databaseShown) {
            s.key = try Self.parseKey(rec.keyHex, shown: databaseShown + " (table privacy_key)", line: nil)
            s.databaseID = rec.databaseID
            s.lifetimeMilli = min(lifetimeMilli, rec.lifetimeMilli)
            return (s, [])
        }
        var notes: [String] = []
        let old = fm.fileExists(atPath: keyURL.path)
        if old {
            s.key = try Self.loadKey(keyURL, shown: keyShown)
        } else {
            if try released() {
                throw DossierError(file: databaseShown,
                                   "the database holds no privacy key, but its data was already released "
                    + "(see the privacy ledger): a new key would draw fresh noise over released data. "
                    + "Restore the database from a backup that has its privacy_key table (docs/game-privacy.md)")
            }
            s.key = Self.freshKey()
        }
        if checkOnly { return (s, []) }
        let rec = PrivacyKeyRecord(keyHex: s.key.hexString,
                                   databaseID: Self.freshKey().prefix(16).hexString,
                                   lifetimeMilli: lifetimeMilli)
        let stored: PrivacyKeyRecord
        do { stored = try StudyDatabase(location: database, create: false).storePrivacyKey(rec) } catch {
            throw DossierError(file: databaseShown, error.message)
        }
        s.key = try Self.parseKey(stored.keyHex, shown: databaseShown + " (table privacy_key)", line: nil)
        s.databaseID = stored.databaseID
        s.lifetimeMilli = min(lifetimeMilli, stored.lifetimeMilli)
        if old {
            try? fm.removeItem(at: keyURL)
            notes.append("moved the privacy key from \(keyShown) into the study database \(databaseShown): "
                         + "the key and the ledger now belong to the data (docs/game-privacy.md)")
        }
        return (s, notes)
    }

    /// Whether the database's ledger or the project's `privacy-ledger.txt` records a release.
    func released() throws -> Bool {
        if let database {
            do {
                if try !StudyDatabase(location: database, create: false).privacyLedger().isEmpty { return true }
            } catch {
                throw DossierError(file: databaseShown, error.message)
            }
        }
        // (Fails closed: a ledger that cannot be read or parsed is an error, never "no release".)
        let shown = projectLedger.path == "/dev/null" ? projectLedger.path : PrivacyLedgerHook.fileName
        guard let text = try PrivacyFiles.textIfPresent(projectLedger, shown: shown) else { return false }
        do { return try !Ledger.parse(text).entries.isEmpty } catch {
            throw DossierError(file: shown, line: error.line, error.message)
        }
    }

    static func freshKey() -> Data { SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) } }

    /// Reads the key file (64 hexadecimal digits), creating it with a fresh random key
    /// (mode 0600) when it does not exist.
    static func loadKey(_ url: URL, shown: String) throws -> Data {
        let fm = FileManager.default
        if !fm.fileExists(atPath: url.path) {
            // Flushed with its folder: a key lost in a crash after a release was built
            // would mean fresh noise over the same data.
            let text = freshKey().hexString + "\n"
            do { try AtomicFile.write(Data(text.utf8), to: url, sync: true, mode: 0o600) } catch {
                throw DossierError(file: shown, "cannot create the privacy key file")
            }
        }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw DossierError(file: shown, "cannot read the privacy key file")
        }
        return try parseKey(text, shown: shown, line: 1)
    }

    /// 64 hexadecimal digits → 32 bytes; a short, malformed or weak key (fewer than
    /// ``minimumDistinctBytes`` different byte values, e.g. all zero) is refused.
    static func parseKey(_ text: String, shown: String, line: Int?) throws -> Data {
        let hex = text.trimmingWhitespaceAndNewlines()
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else {
            throw DossierError(file: shown, line: line, "a privacy key holds 64 hexadecimal digits (256 bits)")
        }
        var out = Data()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        guard Set(out).count >= minimumDistinctBytes else {
            throw DossierError(file: shown, line: line,
                               "the privacy key is weak (it repeats a few byte values, like an "
                + "all-zero key): remove it so that the build draws a random one, "
                + "or write 64 random hexadecimal digits")
        }
        return out
    }

    /// A random 32-byte key has about 30 different byte values; fewer than 12 happens with
    /// probability below 10⁻¹⁰, so a key with fewer was not drawn at random.
    static let minimumDistinctBytes = 12

    /// What the build cache's salt holds of these settings.
    /// (`;key=` and after are left out of the release's input digest.)
    var cacheSalt: String { "\(epsilonMilli)/\(delta)/\(lifetimeMilli);key=\(key.isEmpty ? "none" : cacheTag)" }

    /// A value that changes with the key without revealing it (for the build cache).
    var cacheTag: String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("dossier-privacy-cache".utf8),
                                                  using: SymmetricKey(data: key))
        return mac.prefix(8).hexString
    }

    /// The release's name: keyed by the secret, over the digest of its inputs.
    func releaseID(inputs: Data) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("dossier-release".utf8) + inputs,
                                                  using: SymmetricKey(data: key))
        return mac.prefix(8).hexString
    }
}
#endif
