import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

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
}
