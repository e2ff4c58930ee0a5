import CArgon2
import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import XMLScan
import TextBasics

/// The keys of a KDBX database: composite key from the password and key file, the KDF,
/// then the payload key (and, for KDBX 4, the HMAC base key).
enum KDBXKeys {
    /// SHA-256 over the components' 32-byte keys, in order: SHA-256(password as UTF-8)
    /// when a password is given, then the key file's key.
    static func composite(password: Secret?, keyFile: Data?) throws -> Data {
        var parts = Data()
        if let password { parts += SHA256.hash(data: Data(password.reveal.utf8)) }
        if let keyFile { parts += try keyFileKey(keyFile) }
        guard !parts.isEmpty else { throw VaultError(.invalidInput, "give the database's password, key file or both") }
        return Data(SHA256.hash(data: parts))
    }

    /// A key file's 32-byte key: KeePass XML key files 1.0 (base64 `Key/Data`) and 2.0
    /// (hex `Key/Data`, checked against its `Hash` attribute: the first 4 bytes of its
    /// SHA-256); else exactly 32 bytes as they are; else 64 hex digits; else SHA-256 of
    /// the whole file.
    static func keyFileKey(_ file: Data) throws -> Data {
        if let xml = try xmlKey(file) { return xml }
        if file.count == 32 { return file }
        if file.count == 64, let hex = Data(hex: String(decoding: file, as: UTF8.self)) { return hex }
        return Data(SHA256.hash(data: file))
    }

    private static func xmlKey(_ file: Data) throws -> Data? {
        guard let head = String(data: file.prefix(4096), encoding: .utf8), head.contains("<KeyFile") else { return nil }
        var version = "", keyData = "", dataHash = "", path: [String] = [], text = ""
        do {
            var scanner = try XMLScanner(file)
            while let event = try scanner.next() {
                switch event {
                case .start(let name, let attributes):
                    path.append(name.qualified); text = ""
                    if name.qualified == "Data" { dataHash = attributes["Hash"] ?? "" }
                case .text(let s), .cdata(let s): text += s
                case .end(let name):
                    if name.qualified == "Version" { version = text.trimmingWhitespaceAndNewlines() }
                    if name.qualified == "Data" && path.dropLast().last == "Key" { keyData = text }
                    path.removeLast()
                }
            }
        } catch {
            throw VaultError(.invalidInput, "the key file is damaged XML", line: error.line)
        }
        if version.hasPrefix("1.") {
            guard let k = Data(base64Encoded: keyData.trimmingWhitespaceAndNewlines()) else {
                throw VaultError(.invalidInput, "the key file's key is not base64")
            }
            return k
        }
        if version.hasPrefix("2.") {
            guard let k = Data(hex: keyData.filter { !$0.isWhitespace }) else {
                throw VaultError(.invalidInput, "the key file's key is not hex")
            }
            if let h = Data(hex: dataHash), !h.isEmpty, Data(SHA256.hash(data: k).prefix(h.count)) != h {
                throw VaultError(.invalidInput, "the key file is damaged (its hash does not match)")
            }
            return k
        }
        throw VaultError(.unsupported, "key file version '\(version)' is not supported")
    }

    /// The KDF's 32-byte output for `composite`.
    static func transform(_ composite: Data, kdf: KDBXKDF) throws -> Data {
        try kdf.checkBounds()
        switch kdf {
        case .aes(let rounds, let seed):
            // each 16-byte half of the key is AES-256-ECB encrypted `rounds` times under the seed
            let key = SymmetricKey(data: seed)
            var a = [UInt8](composite.prefix(16)), b = [UInt8](composite.suffix(16))
            for _ in 0..<rounds {
                try AES.permute(&a, key: key)
                try AES.permute(&b, key: key)
            }
            return Data(SHA256.hash(data: a + b))
        case .argon2(let id, let salt, let iterations, let memory, let parallelism, let version):
            var out = [UInt8](repeating: 0, count: 32)
            let status = composite.withUnsafeBytes { pwd in
                salt.withUnsafeBytes { s in
                    argon2_hash(UInt32(iterations), UInt32(memory / 1024), parallelism, pwd.baseAddress, pwd.count,
                                s.baseAddress, s.count, &out, out.count, nil, 0, id ? Argon2_id : Argon2_d,
                                version)
                }
            }
            guard status == ARGON2_OK.rawValue else {
                throw VaultError(.invalidInput, "Argon2 failed: \(String(cString: argon2_error_message(status)))")
            }
            return Data(out)
        }
    }
}

extension Data {
    /// Hex digits (any case) → bytes; nil for odd length or a non-hex character.
    init?(hex: String) {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 65...70: return c - 55
            case 97...102: return c - 87
            default: return nil
            }
        }
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        self.init(out)
    }
}
