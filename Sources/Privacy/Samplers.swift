// MARK: - Exact discrete samplers (Canonne, Kamath & Steinke 2020, Algorithms 1–3)

/// Exact samplers over the integers. Every decision is a comparison of uniform
/// integers with rationals, so no floating-point value ever touches the noise and the
/// attacks on floating-point Laplace noise (Mironov 2012) do not apply.
public enum Samplers {
    /// Bernoulli(p) for a rational p in [0, 1].
    public static func bernoulli(_ p: Rational, _ rng: inout KeyedRandom) -> Bool {
        rng.uniform(below: p.den) < p.num
    }

    /// Bernoulli(exp(−γ)) for a rational γ ≥ 0 (CKS 2020, Algorithm 1).
    public static func bernoulliExp(_ gamma: Rational, _ rng: inout KeyedRandom) -> Bool {
        if gamma <= Rational(1) {
            var k: UInt128 = 1
            while bernoulli(Rational(gamma.num, gamma.den * k), &rng) { k += 1 }
            return k % 2 == 1
        }
        var whole = gamma.floor
        while whole > 0 {
            if !bernoulliExp(Rational(1), &rng) { return false }
            whole -= 1
        }
        return bernoulliExp(Rational(gamma.num % gamma.den, gamma.den), &rng)
    }

    /// Discrete Laplace with scale `scale` = t/s: P(x) ∝ exp(−|x| / scale) on ℤ
    /// (CKS 2020, Algorithm 2).
    public static func discreteLaplace(scale: Rational, _ rng: inout KeyedRandom) -> Int {
        precondition(scale.num > 0, "a Laplace scale is positive")
        let t = scale.num, s = scale.den
        while true {
            let u = rng.uniform(below: t)
            guard bernoulliExp(Rational(u, t), &rng) else { continue }
            var v: UInt128 = 0
            while bernoulliExp(Rational(1), &rng) { v += 1 }
            let y = (u + t * v) / s
            let negative = bernoulli(Rational(1, 2), &rng)
            if negative && y == 0 { continue }
            return negative ? -Int(y) : Int(y)
        }
    }

    /// Discrete Gaussian with variance parameter σ² (a rational):
    /// P(x) ∝ exp(−x² / (2σ²)) on ℤ (CKS 2020, Algorithm 3).
    public static func discreteGaussian(sigma2: Rational, _ rng: inout KeyedRandom) -> Int {
        precondition(sigma2.num > 0, "σ² is positive")
        let t = isqrt(sigma2.floor) + 1
        let a = sigma2.num, b = sigma2.den
        while true {
            let y = discreteLaplace(scale: Rational(t), &rng)
            let m = UInt128(y.magnitude) * b * t
            let d = m >= a ? m - a : a - m
            if bernoulliExp(Rational(d * d, 2 * a * b * t * t), &rng) { return y }
        }
    }

    /// ⌊√n⌋ by Newton's method on integers.
    static func isqrt(_ n: UInt128) -> UInt128 {
        if n < 2 { return n }
        var x = n, y = (n + 1) / 2
        while y < x { x = y; y = (x + n / x) / 2 }
        return x
    }
}
