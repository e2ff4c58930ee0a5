#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// Everything that can go wrong in SecureSMS, worded for a person and never carrying
/// a secret (no code, key, password or message text — positions and counts only).
public enum SecureSMSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A plaintext character outside the GSM 7-bit alphabet (1-based position).
    case notGSM(position: Int)
    /// The plaintext needs more septets than a message carries.
    case tooLong(septets: Int, limit: Int)
    /// A message that is not 160 characters of the safe alphabet.
    case badMessageFormat(String)
    /// A message of a protocol version this program does not speak.
    case unsupportedVersion(Int)
    /// The tag did not verify: wrong contact, damaged, or forged.
    case verificationFailed
    /// The counter was already used (replay) or its key was discarded.
    case replayed(counter: Int)
    /// More messages missing than the skipped-key window allows.
    case tooFarAhead(counter: Int, expected: Int, limit: Int)
    /// Decrypted padding is not canonical (a sender bug).
    case malformedPlaintext
    /// The sending counter has no room left.
    case counterExhausted
    /// A key message that does not parse, fails its check, or cannot be used.
    case badKeyMessage(String)
    /// The safety number typed from the other phone differs: a key may have been substituted.
    case safetyNumberMismatch(contact: String)
    /// Another command holds the keystore's lock.
    case busy(path: String, waited: Int)
    /// Keystore errors.
    case wrongPassword(remaining: Int)
    /// A wrong password given to a read-only open of a keystore whose folder may not be
    /// written: the try could not be counted.
    case wrongPasswordNotCounted
    case locked(until: Date)
    case keystore(String)
    case contact(String)

    public var description: String {
        switch self {
        case .notGSM(let p):
            return "character \(p) is not in the GSM 7-bit alphabet "
                + "(basic table or its extension table € [ ] { } \\ ^ ~ |)"
        case .tooLong(let s, let l):
            return "the message needs \(s) septets but at most \(l) fit "
                + "(extension characters € [ ] { } \\ ^ ~ | count 2)"
        case .badMessageFormat(let why): return "not a SecureSMS message: \(why)"
        case .unsupportedVersion(let v):
            return "message format version \(v) is not supported (this program speaks version \(SMSProtocol.version))"
                + (v < SMSProtocol.version ? "; the sender runs an older dossier and must update" : "")
        case .verificationFailed: return "not from this contact, or damaged (verification failed; nothing was changed)"
        case .replayed(let n):
            return "message #\(n) was already decrypted or its key was discarded; a replayed message is rejected"
        case .tooFarAhead(let n, let e, let l):
            return "message #\(n) is \(n - e) ahead of the next expected #\(e); "
                + "at most \(l) missing messages are tolerated — resynchronise with this contact"
        case .malformedPlaintext: return "the decrypted message has malformed padding (sender bug)"
        case .counterExhausted: return "this contact's message counter is exhausted; resynchronise"
        case .badKeyMessage(let why): return "not a usable SecureSMS key message: \(why)"
        case .safetyNumberMismatch(let name):
            return "the safety numbers differ: a key may have been substituted on the way; "
                + "nothing was agreed and \(name) stays as before. "
                + "Exchange key messages again (best in person) and compare again"
        case .busy(let path, let waited):
            return "\(path) is in use by another `dossier sms` command (waited \(waited) s); "
                + "try again when it has finished"
        case .wrongPassword(let r):
            return r > 0
                ? "wrong password (\(r) more \(r == 1 ? "try" : "tries") before the keystore locks)"
                : "wrong password; the keystore is now locked"
        case .wrongPasswordNotCounted:
            return "wrong password (not counted: the keystore's folder cannot be written, "
                + "so tries are not recorded there)"
        case .locked(let until):
            return "the keystore is locked after too many wrong passwords until \(SMSDates.format(until))"
        case .keystore(let m): return m
        case .contact(let m): return m
        }
    }
}

/// Dates as written in the keystore and reports: ISO 8601 UTC, whole seconds.
public enum SMSDates {
    public static func format(_ d: Date) -> String {
        ISODateText.format(d)
    }
}
