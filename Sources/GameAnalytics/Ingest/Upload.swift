import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Sealing
import TextBasics

// MARK: - Sealed uploads (docs/game-telemetry.md, "Encrypted uploads")

/// A player's upload sealed to the study's RSA public key: the shared envelope of
/// ``Sealing/Envelope`` (`RMU1`), with the game's messages.
public enum Upload {
    public static let magic = Data(Envelope.magic)

    /// A new study key pair as PEM text (private key: PKCS#8).
    public static func makeKeyPair(bits: Int = 3072) throws -> (privatePEM: String, publicPEM: String) {
        try Envelope.makeKeyPair(bits: bits)
    }

    /// The game's words for why an envelope did not open.
    static func message(_ f: Envelope.Failure) -> String {
        f.message(notSealed: "not a RocketMouse upload (the first bytes are not RMU1)",
                  truncated: "the upload is truncated")
    }

    /// Seals `plaintext` (JSON Lines for one player) to the public key.
    public static func seal(_ plaintext: Data, publicKeyPEM: String) throws(GameError) -> Data {
        do { return try Envelope.seal(plaintext, publicKeyPEM: publicKeyPEM) } catch { throw GameError(message(error)) }
    }

    /// Opens a sealed upload with the private key; the error says which check failed.
    public static func open(_ sealed: Data, privateKey: _RSA.Encryption.PrivateKey) throws(GameError) -> Data {
        do { return try Envelope.open(sealed, privateKey: privateKey) } catch { throw GameError(message(error)) }
    }

    /// Reads a PKCS#8 or PKCS#1 PEM private key.
    public static func privateKey(pem: String) throws(GameError) -> _RSA.Encryption.PrivateKey {
        do { return try Envelope.privateKey(pem: pem) } catch { throw GameError(message(error)) }
    }

    /// SHA-256 of the plaintext, hex: the idempotency key of an upload (sealing the same
    /// content twice gives different bytes, but the same hash).
    public static func contentHash(_ plaintext: Data) -> String { Hex.sha256(plaintext) }
}

// MARK: - Ingest

public enum IngestOutcome: Sendable, Hashable {
    case stored(player: String, sessions: Int)
    case duplicate(player: String)
    case rejected(reason: String)
    /// The study database failed (unreachable, connection lost): not the upload's fault;
    /// nothing of it was stored, and the ingest stops (a re-run stores it).
    case failed(reason: String)
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
        if let (line, message) = UTF8Check.problem(content.body) {   // (the device record is line 1)
            return .rejected(reason: "malformed content: line \(line + 1): \(message)")
        }
        let text = String(decoding: content.body, as: UTF8.self)
        var reader = TelemetryJSONL.Reader()
        do { try reader.add(text: text, file: name) } catch {
            // Line numbers count the device record as line 1.
            let column = error.column.map { ", column \($0)" } ?? ""
            return .rejected(reason: "malformed content: line \((error.line ?? 0) + 1)\(column): \(error.message)")
        }
        let players = reader.cohort().players
        guard players.count == 1, let p = players.first else {
            return .rejected(reason: players.isEmpty ? "the upload holds no records"
                                : "the upload holds records for \(players.count) players (expected 1)")
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
                    return .rejected(reason: "player \(p.id) is pinned to another device's signing key "
                                     + "(trust on first use): this upload is signed by a different key")
                }
                // The content hash is claimed first (INSERT … ON CONFLICT DO NOTHING): of two
                // processes storing the same upload at once, one stores it, the other finds
                // a duplicate. A duplicate changes nothing — not even the result key: a
                // replayed old upload must not roll the device's current key back.
                guard try db.claimUpload(hash, player: p.id) else { return .duplicate(player: p.id) }
                try db.pin(p.id, signingKey: content.signingKey, resultKey: content.resultKey)
                let added = try db.store(p)
                try db.recordUpload(hash, player: p.id, sessions: added)
                return .stored(player: p.id, sessions: added)
            }
        } catch {
            return error.storeFailure ? .failed(reason: error.description) : .rejected(reason: error.message)
        }
    }
}
