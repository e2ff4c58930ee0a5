import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Sealing

public enum RecallIngestOutcome: Sendable, Hashable {
    /// The log was stored under this name.
    case stored(log: String)
    /// The same log is already stored (the kit's retry, or a replay under the upload's own name).
    case duplicate(log: String)
    case rejected(reason: String)
}

/// Opens, verifies and stores one sealed recall upload (docs/recall-upload.md, "Ingest").
public enum RecallIngest {
    /// The recall kit's words for why an envelope did not open.
    public static func message(_ f: Envelope.Failure) -> String {
        f.message(notSealed: "not a sealed upload (the first bytes are not RMU1)",
                  truncated: "the upload is truncated (shorter than its header, nonce and tag)")
    }

    /// Checks `sealed` (the drop's file `name`) and stores its log. Nothing is written
    /// unless every check passes; the pin is written before the log, so a kill between
    /// the two leaves a pin that the re-run finds matching.
    public static func ingest(_ sealed: Data, name: String, key: _RSA.Encryption.PrivateKey,
                              into sink: any RecallLogSink & RecallDevicePins) -> RecallIngestOutcome {
        let plain: Data
        do { plain = try Envelope.open(sealed, privateKey: key) } catch { return .rejected(reason: message(error)) }
        let c: RecallUpload.Content
        do { c = try RecallUpload.open(plain) } catch { return .rejected(reason: error.message) }
        guard c.upload == name else {
            return .rejected(reason: "the file is named \(name) but was sealed as \(c.upload): "
                             + "a copied or replayed upload")
        }
        guard c.body.last == 0x0A, String(validating: c.body, as: UTF8.self) != nil else {
            return .rejected(reason: "the log is not UTF-8 text ending with a newline")
        }
        do { _ = try NativeLog.parse(c.body, file: c.log) } catch let e as RecallError {
            return .rejected(reason: "malformed log: \(c.log)\(e.line.map { ":\($0)" } ?? ""): \(e.message)")
        } catch {
            return .rejected(reason: "malformed log: \(c.log): \(error)")
        }
        let sha = RecallUpload.digest(c.body)
        do {
            if let pinned = try sink.pinnedKey(device: c.device), pinned != c.signingKey {
                return .rejected(reason: "device \(c.device) is pinned to another signing key (trust on first use): "
                                 + "this upload is signed by a different key")
            }
            if try sink.contains(sha256: sha) { return .duplicate(log: c.log) }
            try sink.pin(device: c.device, signingKey: c.signingKey)
            // A concurrent ingest may have pinned another key between the check and the pin.
            guard try sink.pinnedKey(device: c.device) == c.signingKey else {
                return .rejected(reason: "device \(c.device) is pinned to another signing key (trust on first use): "
                                 + "this upload is signed by a different key")
            }
            let stored = try sink.store(name: c.log, bytes: [UInt8](c.body), sha256: sha)
            return stored ? .stored(log: c.log) : .duplicate(log: c.log)
        } catch RecallSinkError.nameTaken(let n) {
            return .rejected(reason: "a different log named \(n) is already stored: a conflicting or forged upload")
        } catch RecallSinkError.io(let what) {
            return .rejected(reason: "cannot store: \(what)")
        } catch {
            return .rejected(reason: "cannot store: \(error)")
        }
    }
}
