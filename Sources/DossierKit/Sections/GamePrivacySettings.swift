// Compiled only with the game domain.
#if DOMAIN_GAME
import Crypto
import Foundation
import Privacy

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
    /// ``loaded()`` (reading the configuration writes nothing, so `dossier check` doesn't).
    private(set) var key = Data()
    /// The key file, and its path as shown in messages.
    let keyURL: URL
    let keyShown: String

    var description: String { "GamePrivacySettings(epsilon: \(PrivacyNumber.text(milli: epsilonMilli)), key: <redacted>)" }

    static let keys: Set<String> = ["epsilon", "delta", "lifetime_epsilon", "key_file"]

    init(config: SectionConfig, project: Project) throws {
        var keyPath = project.stateFolder.appendingPathComponent("privacy.key")
        if let node = config.value("privacy") {
            guard case .map(let entries, _) = node else { throw config.error("privacy", "expected keys epsilon, delta, lifetime_epsilon, key_file") }
            let sub = SectionConfig(key: "game.privacy", file: config.file, root: config.root, node: node)
            for e in entries where !Self.keys.contains(e.key) {
                throw DossierError(file: config.file, line: e.keyLine, "game.privacy: unknown key '\(e.key)' (known: epsilon, delta, lifetime_epsilon, key_file)")
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
                guard let v = Double(d), v >= 0, v < 1 else { throw sub.error("delta", "expected a number in [0, 1), got '\(d)'") }
                delta = d
            }
            if lifetimeMilli < epsilonMilli {
                throw sub.error("lifetime_epsilon", "is smaller than one release's epsilon (\(PrivacyNumber.text(milli: epsilonMilli)))")
            }
            if let k = try sub.string("key_file") { keyPath = sub.resolve(k) }
        }
        keyURL = keyPath
        keyShown = project.display(keyPath)
        // A key file that exists must be valid: say so before anything is built.
        if FileManager.default.fileExists(atPath: keyPath.path) { key = try Self.loadKey(keyPath, shown: keyShown) }
    }

    /// The default settings with a given key (benchmarks and tests).
    init(key: Data) {
        self.key = key
        keyURL = URL(fileURLWithPath: "/dev/null")
        keyShown = "(given key)"
    }

    /// These settings with the key read, or created when missing (at build time only;
    /// `dossier check` uses a throw-away key instead and writes nothing).
    func loaded(checkOnly: Bool) throws -> GamePrivacySettings {
        var s = self
        if checkOnly && !FileManager.default.fileExists(atPath: keyURL.path) {
            s.key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        } else {
            s.key = try Self.loadKey(keyURL, shown: keyShown)
        }
        return s
    }

    /// Reads the key file (64 hexadecimal digits), creating it with a fresh random key
    /// (mode 0600) when it does not exist.
    static func loadKey(_ url: URL, shown: String) throws -> Data {
        let fm = FileManager.default
        if !fm.fileExists(atPath: url.path) {
            let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            let text = bytes.map { String(format: "%02x", $0) }.joined() + "\n"
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let tmp = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".tmp")
            guard fm.createFile(atPath: tmp.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw DossierError(file: shown, "cannot create the privacy key file")
            }
            try fm.moveItem(at: tmp, to: url)
        }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw DossierError(file: shown, "cannot read the privacy key file") }
        let hex = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else {
            throw DossierError(file: shown, line: 1, "a privacy key file holds 64 hexadecimal digits (256 bits) on its first line")
        }
        var out = Data()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// What the build cache's salt holds of these settings.
    /// (`;key=` and after are left out of the release's input digest.)
    var cacheSalt: String { "\(epsilonMilli)/\(delta)/\(lifetimeMilli);key=\(key.isEmpty ? "none" : cacheTag)" }

    /// A value that changes with the key without revealing it (for the build cache).
    var cacheTag: String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("dossier-privacy-cache".utf8), using: SymmetricKey(data: key))
        return mac.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The release's name: keyed by the secret, over the digest of its inputs.
    func releaseID(inputs: Data) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("dossier-release".utf8) + inputs, using: SymmetricKey(data: key))
        return mac.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
#endif
