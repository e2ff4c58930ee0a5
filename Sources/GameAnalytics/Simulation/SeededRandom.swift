#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Deterministic random numbers

/// xoshiro256** seeded through SplitMix64: the same seed gives the same stream on every
/// platform (documented in docs/game-measures.md so the simulator can be reimplemented).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var x = seed
        func splitmix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s = (splitmix(), splitmix(), splitmix(), splitmix())
    }

    public mutating func next() -> UInt64 {
        func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
        let result = rotl(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0; s.3 ^= s.1; s.1 ^= s.2; s.0 ^= s.3
        s.2 ^= t
        s.3 = rotl(s.3, 45)
        return result
    }

    /// Uniform in [0, 1): the top 53 bits of `next()` times 2⁻⁵³.
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Standard normal by Box–Muller (cosine branch only): √(−2 ln(1−u₁))·cos(2πu₂).
    public mutating func normal() -> Double {
        let u1 = uniform(), u2 = uniform()
        return (-2 * log(1 - u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// Exponential with the given mean: −mean·ln(1 − u).
    public mutating func exponential(mean: Double) -> Double { -mean * log(1 - uniform()) }

    /// Uniform integer in 0..<n: ⌊u·n⌋.
    public mutating func below(_ n: Int) -> Int { min(n - 1, Int(uniform() * Double(n))) }

    /// Fisher–Yates from the end: for i = n−1 … 1 swap i with below(i+1).
    public mutating func shuffle<T>(_ a: inout [T]) {
        guard a.count > 1 else { return }
        for i in stride(from: a.count - 1, through: 1, by: -1) { a.swapAt(i, below(i + 1)) }
    }

    /// Picks index i with probability weights[i]/Σweights.
    public mutating func weighted(_ weights: [Double]) -> Int {
        var u = uniform() * weights.reduce(0, +)
        for (i, w) in weights.enumerated() { if u < w { return i }; u -= w }
        return weights.count - 1
    }
}
