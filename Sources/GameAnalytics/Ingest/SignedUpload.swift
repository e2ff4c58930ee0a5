import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines
import Sealing
import TextBasics

// MARK: - Signed upload content (docs/game-telemetry.md, "Signed uploads")

/// The plaintext inside a sealed upload: a `device` record on the first line, then the
/// player's JSON Lines records (the *body*).
///
/// ```
/// {"type":"device","player":"…","signing_key":"<b64 32 B>","result_key":"<b64 32 B>","signature":"<b64 64 B>"}
/// <body: survey/session records of that player>
/// ```
/// The Ed25519 signature covers `"RocketMouse upload v2\n" ‖ player ‖ "\n" ‖ result_key ‖ "\n" ‖ body`
/// (`result_key` as its base64 text). The first upload of a player pins its signing key
/// (trust on first use); later uploads for that player must carry the same key.
public enum SignedUpload {
    public static let context = "RocketMouse upload v2\n"

    /// The parsed, verified device record and the body.
    public struct Content: Sendable {
        public var player: String
        /// Base64 of the 32-byte Ed25519 public key.
        public var signingKey: String
        /// Base64 of the 32-byte result key.
        public var resultKey: String
        public var body: Data
    }

    static func message(player: String, resultKey: String, body: Data) -> Data {
        SignedRecord.message(context: context, fields: [player, resultKey], body: body)
    }

    /// The plaintext of an upload: the signed device record followed by `body`.
    public static func make(body: Data, player: String, signingKey: Curve25519.Signing.PrivateKey,
                            resultKey: Data) throws -> Data {
        let rk = resultKey.base64EncodedString()
        let sig = try signingKey.signature(for: message(player: player, resultKey: rk, body: body))
        let publicKey = signingKey.publicKey.rawRepresentation.base64EncodedString()
        let line = "{\"type\":\"device\",\"player\":\(jsonString(player)),\"signing_key\":\"\(publicKey)\","
            + "\"result_key\":\"\(rk)\",\"signature\":\"\(Data(sig).base64EncodedString())\"}\n"
        return Data(line.utf8) + body
    }

    /// Splits and verifies the plaintext; the error says which check failed.
    public static func open(_ plain: Data) throws(GameError) -> Content {
        let unsigned = "unsigned upload: the first record must be the device record with signing_key and signature"
        guard let nl = plain.firstIndex(of: UInt8(ascii: "\n")) else { throw GameError(unsigned) }
        let head = [UInt8](plain[plain.startIndex..<nl])
        let node: JNode
        do {
            node = try JSONLinesFile.withBytes(head) { p throws(JSONLinesError) in
                try JSONReader.record(p, from: 0, to: p.count, file: "upload", line: 1)
            }
        } catch {
            if error.message.hasPrefix("the field '") { throw GameError("the device record: \(error.message)") }
            throw GameError(unsigned)
        }
        guard node["type"]?.stringValue == "device", let members = node.members else { throw GameError(unsigned) }
        var obj: [String: String] = [:]
        for m in members { if let v = m.value.stringValue { obj[m.key] = v } }
        let fields = ["type", "player", "signing_key", "result_key", "signature"]
        guard Set(members.map(\.key)) == Set(fields) else {
            // The field that is wrong, named (docs/game-telemetry.md): the first unknown one, else the first missing.
            let keys = Set(members.map(\.key))
            let which = members.first { !fields.contains($0.key) }.map { "'\(Self.shown($0.key))' is not one of them" }
                ?? fields.first { !keys.contains($0) }.map { "'\($0)' is missing" } ?? ""
            throw GameError("the device record needs exactly type, player, signing_key, result_key and signature: "
                            + which)
        }
        guard let player = obj["player"], isValidPlayerID(player) else {
            throw GameError("the device record's player id is not valid")
        }
        guard let pkText = obj["signing_key"], let pk = Data(base64Encoded: pkText), pk.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: pk)) != nil else {
            throw GameError("signing_key must be a base64 Ed25519 public key (32 bytes)")
        }
        guard let rk = obj["result_key"], let rkData = Data(base64Encoded: rk), rkData.count == 32 else {
            throw GameError("result_key must be 32 bytes in base64")
        }
        guard let sigText = obj["signature"], let sig = Data(base64Encoded: sigText), sig.count == 64 else {
            throw GameError("signature must be 64 bytes in base64")
        }
        let body = Data(plain[(nl + 1)...])
        guard SignedRecord.verify(signingKey: pkText, signature: sig.base64EncodedString(),
                                  message: message(player: player, resultKey: rk, body: body)) else {
            throw GameError("the signature does not verify with the upload's signing key: "
                            + "the content was altered or forged")
        }
        return Content(player: player, signingKey: pk.base64EncodedString(), resultKey: rkData.base64EncodedString(),
                       body: body)
    }
}

// MARK: - Encrypted per-player results (docs/game-telemetry.md, "Results for the player")

/// A player's result sealed with the result key from their latest upload, so a static
/// host can serve it and only the device holding the key can read it.
///
/// - encryption key `E = HMAC-SHA256(key: result key, "RocketMouse result key v1")`
/// - file name `hex(HMAC-SHA256(key: result key, "RocketMouse result name v1"))[0..<32] + ".rmr"`
/// - nonce `= HMAC-SHA256(key: E, plaintext)[0..<12]` (deterministic: same result, same bytes)
/// - file `= "RMR1" ‖ nonce ‖ AES-256-GCM ciphertext ‖ tag`, additional data `"RMR1"`.
extension SignedUpload {
    /// A field name from an upload as a message shows it: at most 40 characters, control
    /// characters written `\u{XX}` (an upload is not trusted to write to a terminal).
    static func shown(_ name: String) -> String {
        var out = ""
        for (i, u) in name.unicodeScalars.enumerated() {
            guard i < 40 else { return out + "…" }
            if u.value < 0x20 || (0x7F...0x9F).contains(u.value) {
                out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}

public enum ResultBox {
    public static let magic = Data("RMR1".utf8)

    public static func name(resultKey: Data) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("RocketMouse result name v1".utf8),
                                                  using: SymmetricKey(data: resultKey))
        return Data(mac).prefix(16).hexString + ".rmr"
    }

    static func encryptionKey(_ resultKey: Data) -> SymmetricKey {
        SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data("RocketMouse result key v1".utf8),
                                                                using: SymmetricKey(data: resultKey))))
    }

    public static func seal(_ plaintext: Data, resultKey: Data) throws -> Data {
        let ek = encryptionKey(resultKey)
        let nonceBytes = Data(HMAC<SHA256>.authenticationCode(for: plaintext, using: ek)).prefix(12)
        let box = try AES.GCM.seal(plaintext, using: ek, nonce: try AES.GCM.Nonce(data: nonceBytes),
                                   authenticating: magic)
        return magic + nonceBytes + box.ciphertext + box.tag
    }

    public static func open(_ data: Data, resultKey: Data) throws -> Data {
        let ek = encryptionKey(resultKey)
        let b = [UInt8](data)
        guard b.count >= 32, Data(b[0..<4]) == magic else { throw GameError("not a result file") }
        let box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: Data(b[4..<16])),
                                        ciphertext: Data(b[16..<(b.count - 16)]),
                                        tag: Data(b[(b.count - 16)...]))
        return try AES.GCM.open(box, using: ek, authenticating: magic)
    }
}
