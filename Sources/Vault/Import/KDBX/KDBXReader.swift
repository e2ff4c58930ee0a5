import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Reads a KeePass KDBX 3.1 or 4.x database into vault items (docs/vault-kdbx.md).
///
/// KDBX 3.1: header · AES/ChaCha20 payload whose plaintext starts with the header's
/// stream start bytes (the password check) · SHA-256 hashed blocks · gzip · XML.
/// KDBX 4: header · SHA-256(header) · HMAC-SHA-256(header) (the password check) ·
/// HMAC'd blocks · AES/ChaCha20 · gzip · inner header (stream cipher, attachments) · XML.
public enum KDBXReader {
    /// What the database unlocks with.
    public struct Credentials: Sendable {
        public var password: Secret?
        public var keyFile: Data?
        public init(password: Secret?, keyFile: Data? = nil) {
            self.password = password
            self.keyFile = keyFile
        }
    }

    public static func read(
        _ data: Data, credentials: Credentials, file: String? = nil, now: Date = Date()
    ) throws -> ImportResult {
        do {
            return try decode(data, credentials: credentials, now: now)
        } catch var e as VaultError {
            e.file = e.file ?? file
            throw e
        }
    }

    static func decode(_ data: Data, credentials: Credentials, now: Date) throws -> ImportResult {
        var reader = ByteReader(data)
        let header = try KDBXHeader.parse(&reader)
        let composite = try KDBXKeys.composite(password: credentials.password, keyFile: credentials.keyFile)
        let transformed = try KDBXKeys.transform(composite, kdf: header.kdf)
        let cipherKey = Data(SHA256.hash(data: header.masterSeed + transformed))
        let wrong = VaultError(
            .wrongPassword, "wrong password or key file for the KeePass database (or its header was altered)")

        var xml: Data
        var stream: InnerStream
        if header.major == 4 {
            let hashed = try reader.bytes(32, what: "header hash")
            guard Data(SHA256.hash(data: header.bytes)) == hashed else {
                throw VaultError(.corrupt, "the KDBX header is damaged (its SHA-256 does not match)")
            }
            let hmacBase = Data(SHA512.hash(data: header.masterSeed + transformed + Data([1])))
            let headerMAC = try reader.bytes(32, what: "header HMAC")
            guard
                Data(HMAC<SHA256>.authenticationCode(for: header.bytes, using: blockKey(hmacBase, UInt64.max)))
                    == headerMAC
            else {
                throw wrong
            }
            let cipherText = try hmacBlocks(&reader, base: hmacBase)
            var plain = try decrypt(cipherText, header: header, key: cipherKey)
            if header.compressed { plain = try Gzip.inflate(plain) }
            var inner = ByteReader(plain)
            var streamID: UInt32 = 0, streamKey = Data()
            loop: while true {
                let id = try inner.u8()
                let value = try inner.bytes(Int(try inner.u32()), what: "inner header")
                switch id {
                case 0: break loop
                case 1: var v = ByteReader(value); streamID = try v.u32()
                case 2: streamKey = value
                case 3: break   // attachment bytes: counted through the entries that use them
                default: break
                }
            }
            stream = try InnerStream(id: streamID, key: streamKey)
            xml = inner.data[inner.offset...]
        } else {
            // The password is checked on the first 32 bytes alone (CBC and ChaCha20 both
            // decrypt them without the rest): a file cut or altered further on, opened with
            // the right password, is then "damaged", never "wrong password".
            let payload = try reader.bytes(reader.remaining, what: "encrypted payload")
            guard payload.count >= 32 else {
                throw VaultError(.truncated, "the file is truncated (in the encrypted payload)")
            }
            guard try decryptStart(payload, header: header, key: cipherKey) == header.streamStartBytes else {
                throw wrong
            }
            let plain: Data
            do { plain = try decrypt(payload, header: header, key: cipherKey) } catch {
                throw VaultError(
                    .corrupt,
                    "the database is damaged (its encrypted payload is cut or altered: the right password's stream "
                        + "start bytes match, the end does not decrypt)"
                )
            }
            guard plain.prefix(32) == header.streamStartBytes else { throw wrong }
            var blocks = ByteReader(plain.dropFirst(32))
            xml = try hashedBlocks(&blocks)
            if header.compressed {
                do { xml = try Gzip.inflate(xml) } catch {
                    throw VaultError(.corrupt, "the database is damaged (its gzip stream)")
                }
            }
            stream = try InnerStream(id: header.innerRandomStreamID, key: header.protectedStreamKey)
        }
        return try KeePassXML.read(xml, file: nil, now: now, format: .kdbx, unprotect: { try stream.apply($0) })
    }

    /// HMAC-SHA-256 key of block `index`: SHA-512(index as u64 LE ‖ HMAC base key).
    static func blockKey(_ base: Data, _ index: UInt64) -> SymmetricKey {
        SymmetricKey(data: SHA512.hash(data: le64(index) + base))
    }

    static func le64(_ v: UInt64) -> Data { Data((0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }) }

    /// KDBX 4 blocks: HMAC (32) · size u32 · data; HMAC over index u64 ‖ size ‖ data; an
    /// empty block ends the stream.
    static func hmacBlocks(_ r: inout ByteReader, base: Data) throws -> Data {
        var out = Data()
        var index: UInt64 = 0
        while true {
            let mac = try r.bytes(32, what: "block \(index)")
            let size = try r.u32()
            let block = try r.bytes(Int(size), what: "block \(index)")
            let sizeBytes = Data((0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) })
            let expected = HMAC<SHA256>.authenticationCode(
                for: le64(index) + sizeBytes + block, using: blockKey(base, index))
            guard Data(expected) == mac else {
                throw VaultError(.corrupt, "the database is damaged (block \(index) fails its HMAC)")
            }
            if size == 0 { return out }
            out += block
            index += 1
        }
    }

    /// KDBX 3.1 blocks: index u32 · SHA-256 (32) · size u32 · data; size 0 ends. As
    /// KeePassXC does, the indices count 0, 1, 2, … and the end block's hash is 32 zero
    /// bytes; nothing may follow it. Any failure is "damaged": the password was right.
    static func hashedBlocks(_ r: inout ByteReader) throws -> Data {
        var out = Data()
        var expected: UInt32 = 0
        func damaged(_ what: String) -> VaultError { VaultError(.corrupt, "the database is damaged (\(what))") }
        while true {
            guard r.remaining >= 40 else { throw damaged("block \(expected) is cut short") }
            let index = try r.u32()
            guard index == expected else { throw damaged("block \(expected) is numbered \(index)") }
            let hash = try r.bytes(32, what: "block \(index)")
            let size = try r.u32()
            if size == 0 {
                guard hash.allSatisfy({ $0 == 0 }) else { throw damaged("the end block's hash is not zero") }
                guard r.remaining == 0 else { throw damaged("\(r.remaining) bytes follow the end block") }
                return out
            }
            guard Int(size) <= r.remaining else { throw damaged("block \(index) is cut short") }
            let block = try r.bytes(Int(size), what: "block \(index)")
            guard Data(SHA256.hash(data: block)) == hash else { throw damaged("block \(index) fails its hash") }
            out += block
            expected &+= 1
        }
    }

    /// The first 32 bytes of the plain text (the stream start bytes), from the first 32
    /// bytes of the payload: AES-CBC without padding, or ChaCha20 from counter 0.
    static func decryptStart(_ data: Data, header: KDBXHeader, key: Data) throws -> Data {
        let head = data.prefix(32)
        switch header.cipher {
        case .aes256:
            return try AES._CBC.decrypt(
                head, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: header.encryptionIV), noPadding: true)
        case .chacha20:
            return try Insecure.ChaCha20CTR.encrypt(
                head, using: SymmetricKey(data: key), nonce: .init(data: header.encryptionIV))
        }
    }

    static func decrypt(_ data: Data, header: KDBXHeader, key: Data) throws -> Data {
        switch header.cipher {
        case .aes256:
            guard !data.isEmpty, data.count % 16 == 0 else {
                throw VaultError(.corrupt, "the encrypted payload has a bad length")
            }
            do {
                return try AES._CBC.decrypt(
                    data, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: header.encryptionIV))
            } catch {
                throw VaultError(
                    .wrongPassword, "wrong password or key file for the KeePass database (or it is damaged)")
            }
        case .chacha20:
            return try Insecure.ChaCha20CTR.encrypt(
                data, using: SymmetricKey(data: key), nonce: .init(data: header.encryptionIV))
        }
    }
}
