import CArgon2
import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Key derivation

/// Key-derivation settings stored in the vault header. scrypt by default at OWASP's
/// minimum (N = 2¹⁷, r = 8, p = 1); PBKDF2-HMAC-SHA256 (≥ 600,000 rounds) is accepted too.
public struct KDFParameters: Sendable, Codable, Equatable {
    public enum Algorithm: String, Sendable, Codable { case scrypt, pbkdf2Sha256 = "pbkdf2-sha256", argon2id }
    public var algorithm: Algorithm
    /// scrypt: log₂ N. Unused for PBKDF2.
    public var logN: Int
    public var r: Int
    public var p: Int
    /// PBKDF2 rounds. Unused for scrypt.
    public var rounds: Int
    /// 32 random bytes.
    public var salt: Data
    /// Argon2id: memory in KiB and passes (absent for the other algorithms, so their
    /// headers are unchanged).
    public var memoryKiB: Int? = nil
    public var iterations: Int? = nil

    public static let saltLength = 32

    /// scrypt N = 2¹⁷, r = 8, p = 1 with a fresh salt (OWASP password storage cheat sheet).
    public static func standard() -> KDFParameters {
        KDFParameters(algorithm: .scrypt, logN: 17, r: 8, p: 1, rounds: 0, salt: freshSalt())
    }

    /// PBKDF2-HMAC-SHA256, 600,000 rounds (OWASP), fresh salt.
    public static func pbkdf2() -> KDFParameters {
        KDFParameters(algorithm: .pbkdf2Sha256, logN: 0, r: 0, p: 0, rounds: 600_000, salt: freshSalt())
    }

    /// Argon2id, m = 64 MiB, t = 3, p = 1 (above OWASP's m ≥ 19 MiB, t ≥ 2), fresh salt.
    public static func argon2id(memoryKiB: Int = 65_536, iterations: Int = 3, lanes: Int = 1) -> KDFParameters {
        KDFParameters(algorithm: .argon2id, logN: 0, r: 0, p: lanes, rounds: 0, salt: freshSalt(),
                      memoryKiB: memoryKiB, iterations: iterations)
    }

    /// Cheap scrypt (N = 2¹⁰) for tests only: ``Vault/create`` refuses it unless asked.
    public static func weakForTesting() -> KDFParameters {
        KDFParameters(algorithm: .scrypt, logN: 10, r: 8, p: 1, rounds: 0, salt: freshSalt())
    }

    static func freshSalt() -> Data {
        let r = SecureRandom()
        return Data((0..<saltLength).map { _ in UInt8(truncatingIfNeeded: r.next()) })
    }

    /// At or above OWASP's minimums.
    public var meetsMinimum: Bool {
        switch algorithm {
        case .scrypt: return logN >= 17 && r >= 8 && p >= 1
        case .pbkdf2Sha256: return rounds >= 600_000
        case .argon2id: return (memoryKiB ?? 0) >= 19_456 && (iterations ?? 0) >= 2 && p >= 1
        }
    }

    /// Bounds that keep a damaged header from asking for absurd work or memory.
    func checkBounds() throws {
        guard salt.count >= 16 && salt.count <= 64 else {
            throw VaultError(.corrupt, "vault header: salt has \(salt.count) bytes")
        }
        switch algorithm {
        case .scrypt:
            // memory 128·N·r ≤ 1 GiB and work N·r·p ≤ 2²⁸ (the default is 128 MiB, 2²⁰)
            guard (10...22).contains(logN), (1...32).contains(r), (1...16).contains(p),
                  (1 << logN) * r <= (1 << 23), (1 << logN) * r * p <= (1 << 28) else {
                throw VaultError(
                    .corrupt,
                    "vault header: scrypt parameters out of range (log2 N 10…22, r 1…32, p 1…16, 128·N·r ≤ 1 GiB, "
                        + "N·r·p ≤ 2^28)"
                )
            }
        case .pbkdf2Sha256:
            guard (100_000...50_000_000).contains(rounds) else {
                throw VaultError(.corrupt, "vault header: PBKDF2 rounds out of range")
            }
        case .argon2id:
            guard let m = memoryKiB, let t = iterations, (1...8).contains(p), (8 * p...1_048_576).contains(m),
                (1...64).contains(t)
            else {
                throw VaultError(
                    .corrupt,
                    "vault header: Argon2id parameters out of range (memory 8·p KiB…1 GiB, 1–64 passes, 1–8 lanes)")
            }
        }
    }

    /// The master key. The password is Unicode-normalised to **NFC** first (so "é" typed
    /// as one code point or as e + combining accent opens the same vault); `normalize:
    /// false` is the bytes as typed, for vaults written before normalisation.
    func deriveMasterKey(_ password: Secret, normalize: Bool = true) throws -> SymmetricKey {
        try checkBounds()
        let bytes = Array((normalize ? password.reveal.nfc : password.reveal).utf8)
        switch algorithm {
        case .scrypt:
            let n = 1 << logN
            return try KDF.Scrypt.deriveKey(from: bytes, salt: salt, outputByteCount: 32,
                                            rounds: n, blockSize: r, parallelism: p,
                                            maxMemory: 128 * n * r * p + (1 << 24))
        case .pbkdf2Sha256:
            // The header's bounds (100,000–50,000,000) were checked when it was read; the
            // checked variant refuses below 210,000, which vaults made elsewhere may use.
            return try KDF.Insecure.PBKDF2.deriveKey(from: bytes, salt: salt, using: .sha256,
                                                     outputByteCount: 32, unsafeUncheckedRounds: rounds)
        case .argon2id:
            var out = [UInt8](repeating: 0, count: 32)
            let status = salt.withUnsafeBytes { s in
                argon2id_hash_raw(UInt32(iterations ?? 0), UInt32(memoryKiB ?? 0), UInt32(p), bytes, bytes.count,
                                  s.baseAddress, s.count, &out, out.count)
            }
            guard status == ARGON2_OK.rawValue else {
                throw VaultError(.invalidInput, "Argon2id failed: \(String(cString: argon2_error_message(status)))")
            }
            return SymmetricKey(data: out)
        }
    }
}

/// The keys derived from the master password. Never printable.
struct VaultKeys: Sendable, CustomStringConvertible, CustomReflectable {
    let header: SymmetricKey
    let body: SymmetricKey
    let item: SymmetricKey

    init(master: SymmetricKey) {
        func sub(_ label: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master, info: Data("dossier-vault/\(label)/v1".utf8), outputByteCount: 32)
        }
        header = sub("header")
        body = sub("body")
        item = sub("item")
    }

    var description: String { "VaultKeys(•••)" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
