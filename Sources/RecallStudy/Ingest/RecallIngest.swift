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
        // The log's own reader names the line of a byte that is not UTF-8 (or of what else
        // is wrong); then the final line feed an Export always writes.
        do { _ = try NativeLog.parse(c.body, file: c.log) } catch let e as RecallError {
            return .rejected(reason: "malformed log: \(c.log)\(e.line.map { ":\($0)" } ?? ""): \(e.message)")
        } catch {
            return .rejected(reason: "malformed log: \(c.log): \(error)")
        }
        guard c.body.last == 0x0A else {
            let lines = c.body.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            return .rejected(reason: "malformed log: \(c.log):\(lines): the log does not end with a line feed "
                             + "(an Export always does: the upload was cut short)")
        }
        guard String(validating: c.body, as: UTF8.self) != nil else {   // (the reader checks the lines it reads)
            return .rejected(reason: "malformed log: \(c.log): the text is not UTF-8")
        }
        let sha = RecallUpload.digest(c.body)
        do {
            if let pinned = try sink.pinnedKey(device: c.device), pinned != c.signingKey {
                return .rejected(reason: "device \(c.device) is pinned to another signing key (trust on first use): "
                                 + "this upload is signed by a different key")
            }
            if try sink.contains(sha256: sha) { return .duplicate(log: c.log) }
            // A refused upload pins nothing: a conflict is found before the pin is written
            // (else a forged upload could pin an unused device id to its own key).
            if let d = try sink.storedDigest(name: c.log), d != sha { throw RecallSinkError.nameTaken(c.log) }
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
