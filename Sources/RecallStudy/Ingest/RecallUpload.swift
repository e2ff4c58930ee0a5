import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Sealing

/// A sealed recall upload (docs/recall-upload.md): the envelope both kits use (`RMU1`,
/// ``Sealing/Envelope``) around a plaintext whose first line is the signed
/// `recall-session` record and whose body is the session's log, byte for byte the file
/// the kit's Export gives:
///
/// ```
/// {"type":"recall-session","device":"<32 hex>","upload":"<name>.rcu","log":"<name>.jsonl",
///  "signing_key":"<b64>","signature":"<b64>"}   (one line)
/// <body: the dossier-recall/1 log>
/// ```
/// The Ed25519 signature covers
/// `"Dossier recall upload v1\n" ‖ device ‖ "\n" ‖ upload ‖ "\n" ‖ log ‖ "\n" ‖ body`.
public enum RecallUpload {
    public static let recordType = "recall-session"
    public static let context = "Dossier recall upload v1\n"
    /// The extension of an upload's file name in the drop folder.
    public static let fileExtension = ".rcu"
    static let keys: Set<String> = ["type", "device", "upload", "log", "signing_key", "signature"]

    /// The verified record and the log.
    public struct Content: Sendable {
        /// 32 lower-case hex digits: the device's id, made with its signing key.
        public var device: String
        /// The file name the kit sends the upload under.
        public var upload: String
        /// The log's file name (as Export names it).
        public var log: String
        /// Base64 of the 32-byte Ed25519 public key.
        public var signingKey: String
        public var body: Data
    }

    /// SHA-256 of bytes, 64 lower-case hex digits.
    public static func digest(_ d: Data) -> String { Hex.sha256(d) }

    /// The plaintext of an upload of `body` (for `dossier recall seal` and the tests).
    public static func make(body: Data, device: String, upload: String, log: String,
                            key: Curve25519.Signing.PrivateKey) throws -> Data {
        let line = try SignedRecord.line(type: recordType,
                                         fields: [("device", device), ("upload", upload), ("log", log)],
                                         signed: ["device", "upload", "log"], context: context, body: body, key: key)
        return Data(line.utf8) + body
    }

    /// A file name of letters, digits, `.`, `_` and `-`, not hidden, with this ending.
    static func isFileName(_ s: String, ending: String, max: Int) -> Bool {
        let b = Array(s.utf8)
        guard b.count > ending.utf8.count, b.count <= max, s.hasSuffix(ending), b[0] != UInt8(ascii: ".") else {
            return false
        }
        return b.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
            || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }
    }

    static func isDeviceID(_ s: String) -> Bool {
        s.utf8.count == 32 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// Splits and verifies the plaintext; the error says which check failed.
    public static func open(_ plain: Data) throws(RecallUploadProblem) -> Content {
        guard let (recordBytes, body) = SignedRecord.split(plain) else {
            throw RecallUploadProblem("not a recall upload: no signed record line")
        }
        let r: [String: String]
        do { r = try FlatJSON.object(recordBytes) } catch {
            if case .duplicate(let k) = error {
                throw RecallUploadProblem("the signed record has the field '\(k)' twice")
            }
            throw RecallUploadProblem("not a recall upload: the first line is not a JSON object of strings")
        }
        guard r["type"] == recordType else {
            throw RecallUploadProblem("not a recall upload: the first record's type is not \(recordType)")
        }
        guard Set(r.keys) == keys else {
            throw RecallUploadProblem("the signed record needs exactly type, device, upload, log, signing_key "
                                      + "and signature")
        }
        let device = r["device"]!, upload = r["upload"]!, log = r["log"]!, sk = r["signing_key"]!, sig = r["signature"]!
        guard isDeviceID(device) else { throw RecallUploadProblem("device must be 32 lower-case hex digits") }
        guard isFileName(upload, ending: fileExtension, max: 120) else {
            throw RecallUploadProblem("upload must be a file name ending \(fileExtension) (A–Z a–z 0–9 . _ -)")
        }
        guard isFileName(log, ending: ".jsonl", max: 200) else {
            throw RecallUploadProblem("log must be a file name ending .jsonl (A–Z a–z 0–9 . _ -)")
        }
        guard let pk = Data(base64Encoded: sk), pk.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: pk)) != nil
        else { throw RecallUploadProblem("signing_key must be a base64 Ed25519 public key (32 bytes)") }
        guard let s = Data(base64Encoded: sig), s.count == 64 else {
            throw RecallUploadProblem("signature must be 64 bytes in base64")
        }
        let message = SignedRecord.message(context: context, fields: [device, upload, log], body: body)
        guard SignedRecord.verify(signingKey: sk, signature: sig, message: message) else {
            throw RecallUploadProblem("the signature does not verify with the upload's signing key: "
                                      + "the content was altered or forged")
        }
        return Content(device: device, upload: upload, log: log, signingKey: sk, body: body)
    }
}

/// Why a recall upload was refused.
public struct RecallUploadProblem: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
