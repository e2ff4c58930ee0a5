import Crypto
import _CryptoExtras
import Foundation
import TextBasics

// MARK: - Sealed uploads (docs/game-telemetry.md, "Encrypted uploads")

/// A player's upload sealed to the study's RSA public key.
///
/// Layout (all integers big-endian):
/// `"RMU1"` · u16 L · L bytes RSA-OAEP-SHA256(AES-256 key) · 12-byte nonce · ciphertext · 16-byte tag.
/// The AES-GCM additional data is the header (`"RMU1"`, L and the wrapped key), so no byte
/// of the upload can change without the open failing.
public enum Upload {
    public static let magic = Data("RMU1".utf8)

    /// A new study key pair as PEM text (private key: PKCS#8).
    public static func makeKeyPair(bits: Int = 3072) throws -> (privatePEM: String, publicPEM: String) {
        let size: _RSA.Signing.KeySize = bits >= 4096 ? .bits4096 : bits >= 3072 ? .bits3072 : .bits2048
        let key = try _RSA.Encryption.PrivateKey(keySize: size)
        return (key.pkcs8PEMRepresentation, key.publicKey.pemRepresentation)
    }

    /// Seals `plaintext` (JSON Lines for one player) to the public key.
    public static func seal(_ plaintext: Data, publicKeyPEM: String) throws(GameError) -> Data {
        let pub: _RSA.Encryption.PublicKey
        do { pub = try _RSA.Encryption.PublicKey(pemRepresentation: publicKeyPEM) } catch {
            throw GameError("the public key is not an RSA public key in PEM form (2048 bits or more)")
        }
        let key = SymmetricKey(size: .bits256)
        do {
            let wrapped = try pub.encrypt(key.withUnsafeBytes { Data($0) }, padding: .PKCS1_OAEP_SHA256)
            var header = magic
            header.append(UInt8(wrapped.count >> 8)); header.append(UInt8(wrapped.count & 0xff))
            header.append(wrapped)
            let box = try AES.GCM.seal(plaintext, using: key, authenticating: header)
            return header + Data(box.nonce) + box.ciphertext + box.tag
        } catch {
            throw GameError("sealing failed")
        }
    }

    /// Opens a sealed upload with the private key; the error says which check failed.
    public static func open(_ sealed: Data, privateKey: _RSA.Encryption.PrivateKey) throws(GameError) -> Data {
        let b = [UInt8](sealed)
        guard b.count >= 6, Data(b[0..<4]) == magic else { throw GameError("not a RocketMouse upload (the first bytes are not RMU1)") }
        let l = Int(b[4]) << 8 | Int(b[5])
        guard b.count >= 6 + l + 12 + 16 else { throw GameError("the upload is truncated") }
        let header = Data(b[0..<(6 + l)])
        let keyBytes: Data
        do { keyBytes = try privateKey.decrypt(Data(b[6..<(6 + l)]), padding: .PKCS1_OAEP_SHA256) } catch {
            throw GameError("cannot unwrap the data key: the upload was sealed to a different study key, or its key block was altered")
        }
        guard keyBytes.count == 32 else { throw GameError("the wrapped data key has the wrong length") }
        do {
            let nonce = try AES.GCM.Nonce(data: Data(b[(6 + l)..<(6 + l + 12)]))
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: Data(b[(6 + l + 12)..<(b.count - 16)]),
                                            tag: Data(b[(b.count - 16)...]))
            return try AES.GCM.open(box, using: SymmetricKey(data: keyBytes), authenticating: header)
        } catch {
            throw GameError("authentication failed: the upload was altered or truncated")
        }
    }

    /// Reads a PKCS#8 or PKCS#1 PEM private key.
    public static func privateKey(pem: String) throws(GameError) -> _RSA.Encryption.PrivateKey {
        do { return try _RSA.Encryption.PrivateKey(pemRepresentation: pem) } catch {
            throw GameError("the key is not an RSA private key in PEM form (2048 bits or more)")
        }
    }

    /// SHA-256 of the plaintext, hex: the idempotency key of an upload (sealing the same
    /// content twice gives different bytes, but the same hash).
    public static func contentHash(_ plaintext: Data) -> String {
        SHA256.hash(data: plaintext).hexString
    }
}

// MARK: - Ingest

public enum IngestOutcome: Sendable, Hashable {
    case stored(player: String, sessions: Int)
    case duplicate(player: String)
    case rejected(reason: String)
}

public enum Ingest {
    /// Opens, validates and stores one sealed upload in its own transaction. Nothing is
    /// written unless every check passes; a rejected upload leaves the database unchanged.
    public static func ingest(_ sealed: Data, name: String, key: _RSA.Encryption.PrivateKey,
                              into db: StudyDatabase) -> IngestOutcome {
        let plain: Data
        do { plain = try Upload.open(sealed, privateKey: key) } catch { return .rejected(reason: error.message) }
        let content: SignedUpload.Content
        do { content = try SignedUpload.open(plain) } catch { return .rejected(reason: error.message) }
        guard let text = String(data: content.body, encoding: .utf8) else { return .rejected(reason: "the content is not UTF-8 text") }
        var reader = TelemetryJSONL.Reader()
        do { try reader.add(text: text, file: name) } catch {
            // Line numbers count the device record as line 1.
            return .rejected(reason: "malformed content: line \((error.line ?? 0) + 1): \(error.message)")
        }
        let players = reader.cohort().players
        guard players.count == 1, let p = players.first else {
            return .rejected(reason: players.isEmpty ? "the upload holds no records" : "the upload holds records for \(players.count) players (expected 1)")
        }
        guard p.id == content.player else {
            return .rejected(reason: "the records are for player \(p.id) but the device record names \(content.player)")
        }
        // Every session the kit recorded (it carries its obstacle seed) is recomputed.
        for s in p.sessions {
            guard let seed = reader.seeds[p.id]?[s.index],
                  let problem = KitModel.problem(s, seed: seed.seed) else { continue }
            return .rejected(reason: "line \(seed.line + 1): \(problem)")
        }
        let hash = Upload.contentHash(content.body)
        do {
            return try db.transaction { () throws(GameError) -> IngestOutcome in
                // Trust on first use: the first signed upload pins the player's device key.
                if let pinned = try db.pinnedKey(p.id), pinned != content.signingKey {
                    return .rejected(reason: "player \(p.id) is pinned to another device's signing key (trust on first use): this upload is signed by a different key")
                }
                // A duplicate changes nothing — not even the result key: a replayed old
                // upload must not roll the device's current key back.
                if try db.hasUpload(hash) { return .duplicate(player: p.id) }
                try db.pin(p.id, signingKey: content.signingKey, resultKey: content.resultKey)
                let added = try db.store(p)
                try db.recordUpload(hash, player: p.id, sessions: added)
                return .stored(player: p.id, sessions: added)
            }
        } catch {
            return .rejected(reason: error.message)
        }
    }
}
