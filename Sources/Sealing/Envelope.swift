import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The sealed envelope both kits send (docs/game-telemetry.md, "Encrypted uploads";
/// docs/recall-upload.md): hybrid RSA-OAEP-SHA-256 + AES-256-GCM to the study's public key.
///
/// Layout (integers big-endian):
/// `"RMU1"` · u16 L · L bytes RSA-OAEP-SHA256(AES-256 key) · 12-byte nonce · ciphertext · 16-byte tag.
/// The AES-GCM additional data is the header (`"RMU1"`, L and the wrapped key), so no byte
/// of the envelope can change without the open failing.
public enum Envelope {
    public static let magic: [UInt8] = Array("RMU1".utf8)

    /// Why an envelope did not open; each domain words the message for its users.
    public enum Failure: Error, Sendable, Equatable {
        /// The first four bytes are not `RMU1`.
        case notSealed
        /// Shorter than the header, nonce and tag it announces.
        case truncated
        /// RSA-OAEP did not unwrap the data key: another study key, or the key block was altered.
        case wrongKey
        /// The unwrapped data key is not 32 bytes.
        case badKeyLength
        /// AES-GCM did not authenticate: a byte was altered or the envelope cut short.
        case altered
        /// The public key given for sealing is not an RSA public key in PEM form.
        case badPublicKey
        /// The private key given for opening is not an RSA private key in PEM form.
        case badPrivateKey
        /// Sealing itself failed.
        case sealing

        /// The words for the failure, the same for every kit but the first two, which name
        /// what each kit calls its uploads (`notSealed`, `truncated`).
        public func message(notSealed: String, truncated: String) -> String {
            switch self {
            case .notSealed: return notSealed
            case .truncated: return truncated
            case .wrongKey:
                return "cannot unwrap the data key: the upload was sealed to a different study key, "
                    + "or its key block was altered"
            case .badKeyLength: return "the wrapped data key has the wrong length"
            case .altered: return "authentication failed: the upload was altered or truncated"
            case .badPublicKey: return "the public key is not an RSA public key in PEM form (2048 bits or more)"
            case .badPrivateKey: return "the key is not an RSA private key in PEM form (2048 bits or more)"
            case .sealing: return "sealing failed"
            }
        }
    }

    /// A new study key pair as PEM text (private key: PKCS#8; public key: SubjectPublicKeyInfo).
    public static func makeKeyPair(bits: Int = 3072) throws -> (privatePEM: String, publicPEM: String) {
        let size: _RSA.Signing.KeySize = bits >= 4096 ? .bits4096 : bits >= 3072 ? .bits3072 : .bits2048
        let key = try _RSA.Encryption.PrivateKey(keySize: size)
        return (key.pkcs8PEMRepresentation, key.publicKey.pemRepresentation)
    }

    /// Reads a PKCS#8 or PKCS#1 PEM private key.
    public static func privateKey(pem: String) throws(Failure) -> _RSA.Encryption.PrivateKey {
        do { return try _RSA.Encryption.PrivateKey(pemRepresentation: pem) } catch { throw .badPrivateKey }
    }

    /// Seals `plaintext` to the public key (PEM).
    public static func seal(_ plaintext: Data, publicKeyPEM: String) throws(Failure) -> Data {
        let pub: _RSA.Encryption.PublicKey
        do { pub = try _RSA.Encryption.PublicKey(pemRepresentation: publicKeyPEM) } catch { throw .badPublicKey }
        let key = SymmetricKey(size: .bits256)
        do {
            let wrapped = try pub.encrypt(key.withUnsafeBytes { Data($0) }, padding: .PKCS1_OAEP_SHA256)
            var header = Data(magic)
            header.append(UInt8(wrapped.count >> 8)); header.append(UInt8(wrapped.count & 0xff))
            header.append(wrapped)
            let box = try AES.GCM.seal(plaintext, using: key, authenticating: header)
            return header + Data(box.nonce) + box.ciphertext + box.tag
        } catch {
            throw .sealing
        }
    }

    /// Opens an envelope with the private key: the plaintext, or which check failed.
    public static func open(_ sealed: Data, privateKey: _RSA.Encryption.PrivateKey) throws(Failure) -> Data {
        let b = [UInt8](sealed)
        guard b.count >= 4, Array(b[0..<4]) == magic else { throw .notSealed }
        guard b.count >= 6 else { throw .truncated }   // (RMU1 and no key length: cut short, not another format)
        let l = Int(b[4]) << 8 | Int(b[5])
        guard b.count >= 6 + l + 12 + 16 else { throw .truncated }
        let header = Data(b[0..<(6 + l)])
        let keyBytes: Data
        do { keyBytes = try privateKey.decrypt(Data(b[6..<(6 + l)]), padding: .PKCS1_OAEP_SHA256) } catch {
            throw .wrongKey
        }
        guard keyBytes.count == 32 else { throw .badKeyLength }
        do {
            let nonce = try AES.GCM.Nonce(data: Data(b[(6 + l)..<(6 + l + 12)]))
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: Data(b[(6 + l + 12)..<(b.count - 16)]),
                                            tag: Data(b[(b.count - 16)...]))
            return try AES.GCM.open(box, using: SymmetricKey(data: keyBytes), authenticating: header)
        } catch {
            throw .altered
        }
    }
}

/// Lower-case hexadecimal and SHA-256 digests (without `String(format:)`).
public enum Hex {
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Two lower-case hex digits per byte.
    public static func string<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var out: [UInt8] = []
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// SHA-256 of `data`, as 64 lower-case hex digits.
    public static func sha256<D: DataProtocol>(_ data: D) -> String { string(SHA256.hash(data: data)) }
}
