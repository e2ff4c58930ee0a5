#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The outer header of a KDBX 3.1 or 4.x file (docs/vault-kdbx.md): signatures, version,
/// then type-length-value fields up to the end-of-header field.
struct KDBXHeader {
    static let signature1: UInt32 = 0x9AA2_D903
    static let signature2: UInt32 = 0xB54B_FB67

    enum Cipher: String { case aes256 = "AES-256", chacha20 = "ChaCha20" }

    var major: UInt16
    var minor: UInt16
    var cipher: Cipher
    var compressed: Bool
    var masterSeed: Data
    var encryptionIV: Data
    var kdf: KDBXKDF
    /// KDBX 3.1 only (KDBX 4 keeps them in the inner header).
    var protectedStreamKey = Data()
    var streamStartBytes = Data()
    var innerRandomStreamID: UInt32 = 0
    /// Every header byte, signatures included (what the header hash and HMAC cover).
    var bytes: Data

    static func isKDBX(_ data: Data) -> Bool {
        var r = ByteReader(data)
        return (try? r.u32()) == signature1 && (try? r.u32()) == signature2
    }

    /// Parses the header; `reader` is left at the first byte after it.
    static func parse(_ reader: inout ByteReader) throws -> KDBXHeader {
        let start = reader.offset
        guard try reader.u32() == signature1, try reader.u32() == signature2 else {
            throw VaultError(.invalidInput, "not a KeePass 2 (KDBX) database")
        }
        let minor = try reader.u16(), major = try reader.u16()
        guard major == 3 || major == 4 else {
            throw VaultError(.unsupported, "KDBX version \(major).\(minor) is not supported (3.1 and 4.x are)")
        }
        var fields: [UInt8: Data] = [:]
        while true {
            let id = try reader.u8()
            let size = major == 4 ? Int(try reader.u32()) : Int(try reader.u16())
            let value = try reader.bytes(size, what: "header field \(id)")
            if id == 0 { break }
            fields[id] = value
        }
        func need(_ id: UInt8, _ name: String, count: Int? = nil) throws -> Data {
            guard let v = fields[id], count.map({ v.count == $0 }) ?? true else {
                throw VaultError(.corrupt, "the KDBX header has no valid \(name)")
            }
            return v
        }
        let cipher: Cipher
        switch try need(2, "cipher").uuidString {
        case "31C1F2E6-BF71-4350-BE58-05216AFC5AFF": cipher = .aes256
        case "D6038A2B-8B6F-4CB5-A524-339A31DBB59A": cipher = .chacha20
        case "AD68F29F-576F-4BB9-A36A-D47AF965346C":
            throw VaultError(.unsupported, "Twofish-encrypted databases are not supported (AES-256 and ChaCha20 are)")
        default: throw VaultError(.unsupported, "the database's cipher is not supported (AES-256 and ChaCha20 are)")
        }
        let compression = try need(3, "compression flag", count: 4)
        var c = ByteReader(compression)
        let flag = try c.u32()
        guard flag <= 1 else {
            throw VaultError(.unsupported, "compression \(flag) is not supported (none and gzip are)")
        }
        let kdf: KDBXKDF
        if major == 4 {
            kdf = try KDBXKDF(variantDictionary: try need(11, "KDF parameters"))
        } else {
            var rounds = ByteReader(try need(6, "transform rounds", count: 8))
            kdf = .aes(rounds: try rounds.u64(), seed: try need(5, "transform seed", count: 32))
        }
        var h = KDBXHeader(major: major, minor: minor, cipher: cipher, compressed: flag == 1,
                           masterSeed: try need(4, "master seed", count: 32),
                           encryptionIV: try need(7, "encryption IV", count: cipher == .aes256 ? 16 : 12),
                           kdf: kdf, bytes: reader.data[start..<reader.offset])
        if major == 3 {
            h.protectedStreamKey = try need(8, "protected stream key")
            h.streamStartBytes = try need(9, "stream start bytes", count: 32)
            var id = ByteReader(try need(10, "inner random stream id", count: 4))
            h.innerRandomStreamID = try id.u32()
        }
        try kdf.checkBounds()
        return h
    }
}

/// KeePass's key-derivation settings.
enum KDBXKDF: Equatable {
    case aes(rounds: UInt64, seed: Data)
    /// `memory` in bytes; `id` false = Argon2d.
    case argon2(id: Bool, salt: Data, iterations: UInt64, memory: UInt64, parallelism: UInt32, version: UInt32)

    static let aesUUID = "C9D9F39A-628A-4460-BF74-0D08C18A4FEA"
    static let aesKDBX4UUID = "7C02BB82-79A7-4AC0-927D-114A00648238"
    static let argon2dUUID = "EF636DDF-8C29-444B-91F7-A9A403E30A0C"
    static let argon2idUUID = "9E298B19-56DB-4773-B23D-FC3EC6F0A1E6"

    /// From a KDBX 4 VariantDictionary: `$UUID`; AES-KDF `R` rounds, `S` seed;
    /// Argon2 `S` salt, `I` iterations, `M` memory (bytes), `P` lanes, `V` version.
    init(variantDictionary data: Data) throws {
        let d = try VariantDictionary.parse(data)
        func bytes(_ k: String) throws -> Data {
            guard case .bytes(let b)? = d[k] else { throw VaultError(.corrupt, "the KDF parameters lack '\(k)'") }
            return b
        }
        func int(_ k: String) throws -> UInt64 {
            switch d[k] {
            case .uint(let v)?: return v
            default: throw VaultError(.corrupt, "the KDF parameters lack '\(k)'")
            }
        }
        switch try bytes("$UUID").uuidString {
        case Self.aesUUID, Self.aesKDBX4UUID:
            self = .aes(rounds: try int("R"), seed: try bytes("S"))
        case let u where u == Self.argon2dUUID || u == Self.argon2idUUID:
            self = .argon2(
                id: u == Self.argon2idUUID, salt: try bytes("S"), iterations: try int("I"), memory: try int("M"),
                parallelism: UInt32(clamping: try int("P")), version: UInt32(clamping: try int("V")))
            if d["K"] != nil || d["A"] != nil {
                throw VaultError(.unsupported, "Argon2 with a secret key or associated data is not supported")
            }
        default:
            throw VaultError(
                .unsupported, "the database's key derivation is not supported (AES-KDF, Argon2d and Argon2id are)")
        }
    }

    /// Bounds read from the file before any work: AES-KDF 1…100,000,000 rounds with a
    /// 32-byte seed; Argon2 version 0x10 or 0x13, 1…64 lanes, 1…1,000 iterations,
    /// 8 KiB × lanes … 2 GiB memory, salt 8…64 bytes.
    func checkBounds() throws {
        switch self {
        case .aes(let rounds, let seed):
            guard (1...100_000_000).contains(rounds), seed.count == 32 else {
                throw VaultError(.corrupt, "AES-KDF parameters out of range (1…100,000,000 rounds, 32-byte seed)")
            }
        case .argon2(_, let salt, let iterations, let memory, let parallelism, let version):
            guard version == 0x10 || version == 0x13, (1...64).contains(parallelism), (1...1_000).contains(iterations),
                  memory >= 8 * 1024 * UInt64(parallelism), memory <= 2 << 30, (8...64).contains(salt.count) else {
                throw VaultError(
                    .corrupt,
                    "Argon2 parameters out of range (1…64 lanes, 1…1,000 iterations, ≤ 2 GiB, version 0x10/0x13)")
            }
        }
    }
}

/// KDBX 4's typed key-value map: u16 version 0x01xx, then items (u8 type, u32 key
/// length, key, u32 value length, value) until type 0.
enum VariantDictionary {
    enum Value: Equatable { case uint(UInt64), int(Int64), bool(Bool), string(String), bytes(Data) }

    static func parse(_ data: Data) throws -> [String: Value] {
        var r = ByteReader(data)
        let version = try r.u16()
        guard version >> 8 == 1 else {
            throw VaultError(.unsupported, "KDF parameter dictionary version \(version >> 8) is not supported")
        }
        var out: [String: Value] = [:]
        while true {
            let type = try r.u8()
            if type == 0 { return out }
            let key = String(decoding: try r.bytes(Int(try r.u32()), what: "dictionary key"), as: UTF8.self)
            let raw = try r.bytes(Int(try r.u32()), what: "dictionary value")
            var v = ByteReader(raw)
            switch (type, raw.count) {
            case (0x04, 4): out[key] = .uint(UInt64(try v.u32()))
            case (0x05, 8): out[key] = .uint(try v.u64())
            case (0x08, 1): out[key] = .bool(raw.first != 0)
            case (0x0C, 4): out[key] = .int(Int64(Int32(bitPattern: try v.u32())))
            case (0x0D, 8): out[key] = .int(Int64(bitPattern: try v.u64()))
            case (0x18, _): out[key] = .string(String(decoding: raw, as: UTF8.self))
            case (0x42, _): out[key] = .bytes(raw)
            default: throw VaultError(.corrupt, "KDF parameter '\(key)' has a bad type or size")
            }
        }
    }
}

/// Little-endian reads with bounds checks ("truncated" errors, never a trap).
struct ByteReader {
    let data: Data
    private(set) var offset: Int

    init(_ data: Data) { self.data = data; offset = data.startIndex }

    var remaining: Int { data.endIndex - offset }

    mutating func bytes(_ n: Int, what: String = "data") throws -> Data {
        guard n >= 0, n <= remaining else { throw VaultError(.truncated, "the file is truncated (in the \(what))") }
        defer { offset += n }
        return data[offset..<offset + n]
    }
    mutating func u8() throws -> UInt8 { try bytes(1).first! }
    mutating func u16() throws -> UInt16 { UInt16(try le(2)) }
    mutating func u32() throws -> UInt32 { UInt32(try le(4)) }
    mutating func u64() throws -> UInt64 { try le(8) }
    private mutating func le(_ n: Int) throws -> UInt64 {
        try bytes(n).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

extension Data {
    /// 16 bytes as an upper-case UUID string ("" for any other length).
    var uuidString: String {
        guard count == 16 else { return "" }
        return withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)).uuidString }
    }
}
