import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - A keyed deterministic generator (docs/game-privacy.md, "The keyed generator")

/// Random bits drawn from HMAC-SHA256 in counter mode: block i is
/// `HMAC-SHA256(key, context ‖ UInt64_be(i))`, read as four big-endian `UInt64` words.
/// The same key and context give the same stream on every machine, so a release built
/// twice from the same inputs draws the same noise (and spends no new budget); without
/// the key the stream cannot be predicted.
public struct KeyedRandom: Sendable {
    private let key: SymmetricKey
    private let context: Data
    private var counter: UInt64 = 0
    private var buffer: [UInt64] = []

    /// `key`: the secret project key (at least 16 bytes); `context`: what this stream is
    /// for (the release's input digest and the statistic's label).
    public init(key: Data, context: Data) {
        precondition(key.count >= 16, "a privacy key has at least 16 bytes")
        self.key = SymmetricKey(data: key)
        self.context = context
    }

    public init(key: Data, context: String) { self.init(key: key, context: Data(context.utf8)) }

    /// The next 64 uniformly random bits.
    public mutating func next() -> UInt64 {
        if buffer.isEmpty {
            var msg = context
            withUnsafeBytes(of: counter.bigEndian) { msg.append(contentsOf: $0) }
            counter += 1
            let mac = Array(HMAC<SHA256>.authenticationCode(for: msg, using: key))
            buffer = (0..<4).reversed().map { w in (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(mac[w * 8 + $1]) } }
        }
        return buffer.removeLast()
    }

    /// A uniform integer in 0..<n (n > 0), by rejection (no modulo bias).
    public mutating func uniform(below n: UInt128) -> UInt128 {
        precondition(n > 0)
        if n <= UInt128(UInt64.max) {
            let m = UInt64(n)
            let limit = UInt64.max - (UInt64.max % m) // values ≥ limit are rejected
            while true {
                let x = next()
                if x < limit || limit == 0 { return UInt128(x % m) }
            }
        }
        let limit = UInt128.max - (UInt128.max % n)
        while true {
            let x = UInt128(next()) << 64 | UInt128(next())
            if x < limit { return x % n }
        }
    }
}
