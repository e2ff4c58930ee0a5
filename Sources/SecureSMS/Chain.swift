import Crypto
import Foundation

// MARK: - Symmetric-key ratchet

/// One HMAC chain step, as Signal's symmetric ratchet: the message key is
/// HMAC-SHA256(CK, 0x01) and the next chain key HMAC-SHA256(CK, 0x02). Message keys
/// never derive other keys, so a skipped one can be kept without weakening the chain.
public enum Chain {
    public static func step(_ chainKey: [UInt8]) -> (messageKey: [UInt8], next: [UInt8]) {
        let key = SymmetricKey(data: chainKey)
        let mk = Array(HMAC<SHA256>.authenticationCode(for: [UInt8(0x01)], using: key))
        let ck = Array(HMAC<SHA256>.authenticationCode(for: [UInt8(0x02)], using: key))
        return (mk, ck)
    }

    /// The two initial chain keys of a pair, from both contact codes (10 bytes each).
    ///
    /// ikm = min(a, b) ‖ max(a, b) (byte-wise order), salt = "SecureSMS v1 pair",
    /// info = "SecureSMS v1 chain" ‖ sender's code ‖ receiver's code, 32 bytes each.
    public static func initialChains(own: ContactCode, theirs: ContactCode) -> (send: [UInt8], receive: [UInt8]) {
        let a = own.bytes, b = theirs.bytes
        let ikm = a.lexicographicallyPrecedes(b) ? a + b : b + a
        func chain(_ from: [UInt8], _ to: [UInt8]) -> [UInt8] {
            let k = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: Array("SecureSMS v1 pair".utf8),
                                           info: Array("SecureSMS v1 chain".utf8) + from + to, outputByteCount: 32)
            return k.withUnsafeBytes { Array($0) }
        }
        return (chain(a, b), chain(b, a))
    }
}
