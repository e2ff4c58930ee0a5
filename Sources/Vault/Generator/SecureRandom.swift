#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Secure randomness

/// Random numbers from the system CSPRNG (`getrandom(2)` on Linux, `arc4random` on
/// Apple platforms, via `SystemRandomNumberGenerator`), with unbiased ranges by
/// rejection sampling.
public struct SecureRandom: Sendable {
    public init() {}

    /// 64 random bits.
    public func next() -> UInt64 {
        var g = SystemRandomNumberGenerator()
        return g.next()
    }

    /// Uniform in `0..<n` (n > 0): draws 64 bits and rejects the top partial block
    /// `[2⁶⁴ − 2⁶⁴ mod n, 2⁶⁴)`, so every value has exactly the same chance. Each draw is
    /// accepted with probability > ½, so the expected number of draws is < 2.
    public func below(_ n: Int) -> Int {
        precondition(n > 0)
        let un = UInt64(n)
        let limit = UInt64.max - (UInt64.max % un + 1) % un   // largest accepted value
        while true {
            let r = next()
            if r <= limit { return Int(r % un) }
        }
    }

    /// Uniform in `0..<n` for a big `n`: draws `n.bitWidth` random bits and rejects
    /// values ≥ n (acceptance > ½).
    func below(_ n: BigUInt) -> BigUInt {
        precondition(!n.isZero)
        let bits = n.bitWidth
        while true {
            var limbs: [UInt32] = []
            var remaining = bits
            while remaining > 0 {
                var w = UInt32(truncatingIfNeeded: next())
                if remaining < 32 { w &= (UInt32(1) << UInt32(remaining)) - 1 }
                limbs.append(w)
                remaining -= 32
            }
            let r = BigUInt(limbs: limbs)
            if r < n { return r }
        }
    }

    /// Fisher–Yates shuffle with unbiased indices.
    public func shuffle<T>(_ a: inout [T]) {
        guard a.count > 1 else { return }
        for i in stride(from: a.count - 1, to: 0, by: -1) {
            let j = below(i + 1)
            if i != j { a.swapAt(i, j) }
        }
    }
}

// MARK: - Big unsigned integers (just enough for exact counting)

/// A minimal arbitrary-precision unsigned integer: add, subtract, multiply, compare.
/// Used to count valid passwords exactly (94⁶⁴ ≈ 10¹²⁶ does not fit in 64 bits).
struct BigUInt: Comparable, Sendable, CustomStringConvertible {
    /// Little-endian 32-bit limbs, no trailing zero limbs.
    private(set) var limbs: [UInt32]

    init(limbs: [UInt32]) { self.limbs = limbs; normalize() }
    init(_ v: UInt64) { self.init(limbs: [UInt32(truncatingIfNeeded: v), UInt32(truncatingIfNeeded: v >> 32)]) }

    static let zero = BigUInt(0)
    static let one = BigUInt(1)
    var isZero: Bool { limbs.isEmpty }

    private mutating func normalize() { while limbs.last == 0 { limbs.removeLast() } }

    var bitWidth: Int {
        guard let top = limbs.last else { return 0 }
        return (limbs.count - 1) * 32 + (32 - top.leadingZeroBitCount)
    }

    static func + (a: BigUInt, b: BigUInt) -> BigUInt {
        var out: [UInt32] = []
        out.reserveCapacity(max(a.limbs.count, b.limbs.count) + 1)
        var carry: UInt64 = 0
        for k in 0..<max(a.limbs.count, b.limbs.count) {
            let s = UInt64(k < a.limbs.count ? a.limbs[k] : 0) + UInt64(k < b.limbs.count ? b.limbs[k] : 0) + carry
            out.append(UInt32(truncatingIfNeeded: s))
            carry = s >> 32
        }
        if carry > 0 { out.append(UInt32(carry)) }
        return BigUInt(limbs: out)
    }

    /// a − b, requires a ≥ b.
    static func - (a: BigUInt, b: BigUInt) -> BigUInt {
        precondition(a >= b)
        var out = a.limbs
        var borrow: Int64 = 0
        for k in 0..<out.count {
            var d = Int64(out[k]) - Int64(k < b.limbs.count ? b.limbs[k] : 0) - borrow
            if d < 0 { d += 1 << 32; borrow = 1 } else { borrow = 0 }
            out[k] = UInt32(d)
        }
        return BigUInt(limbs: out)
    }

    static func * (a: BigUInt, b: BigUInt) -> BigUInt {
        if a.isZero || b.isZero { return .zero }
        var out = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count)
        for (x, av) in a.limbs.enumerated() {
            var carry: UInt64 = 0
            for (y, bv) in b.limbs.enumerated() {
                let t = UInt64(av) * UInt64(bv) + UInt64(out[x + y]) + carry
                out[x + y] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            var k = x + b.limbs.count
            while carry > 0 {
                let t = UInt64(out[k]) + carry
                out[k] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
                k += 1
            }
        }
        return BigUInt(limbs: out)
    }

    static func < (a: BigUInt, b: BigUInt) -> Bool {
        if a.limbs.count != b.limbs.count { return a.limbs.count < b.limbs.count }
        for k in stride(from: a.limbs.count - 1, through: 0, by: -1) where a.limbs[k] != b.limbs[k] {
            return a.limbs[k] < b.limbs[k]
        }
        return false
    }

    /// Approximate value as a Double (for log₂ of counts in reports).
    var doubleValue: Double {
        limbs.reversed().reduce(0.0) { $0 * 4294967296.0 + Double($1) }
    }

    var description: String {
        // decimal by repeated division by 10⁹
        if isZero { return "0" }
        var parts: [UInt32] = []
        var cur = limbs
        while !cur.isEmpty {
            var rem: UInt64 = 0
            for k in stride(from: cur.count - 1, through: 0, by: -1) {
                let v = (rem << 32) | UInt64(cur[k])
                cur[k] = UInt32(v / 1_000_000_000)
                rem = v % 1_000_000_000
            }
            while cur.last == 0 { cur.removeLast() }
            parts.append(UInt32(rem))
        }
        var s = String(parts.last!)
        for p in parts.dropLast().reversed() { s += String(repeating: "0", count: 9 - String(p).count) + String(p) }
        return s
    }
}
