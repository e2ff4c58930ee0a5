#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Special functions (docs/game-measures.md, "Numerics")

public enum Special {
    /// log(erfc(x)), accurate for every finite x.
    ///
    /// For x < 3 this is `log(erfc(x))` from the C library (erfc(3) ≈ 2.2e-5, far from
    /// underflow). For x ≥ 3 it is `log(erfcx(x)) − x²`, where the scaled complementary
    /// error function erfcx(x) = exp(x²)·erfc(x) comes from Laplace's continued fraction
    /// erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))),
    /// evaluated bottom-up with 120 terms (relative error < 1e-15 for x ≥ 3).
    public static func logErfc(_ x: Double) -> Double {
        if x.isNaN { return .nan }
        if x < 3 { return Glibc.log(Glibc.erfc(x)) }
        return Glibc.log(erfcx(x)) - x * x
    }

    /// exp(x²)·erfc(x) for x ≥ 3 (continued fraction); for x < 3 computed directly.
    public static func erfcx(_ x: Double) -> Double {
        if x < 3 { return Glibc.exp(x * x) * Glibc.erfc(x) }
        if x > 1e8 { return 1 / (x * Double.pi.squareRoot()) }
        var t = x
        for k in stride(from: 120, through: 1, by: -1) {
            t = x + (Double(k) / 2) / t
        }
        return 1 / (Double.pi.squareRoot() * t)
    }

    /// log Φ(z), the log of the standard normal CDF: log(½·erfc(−z/√2)).
    public static func logNormalCDF(_ z: Double) -> Double {
        Glibc.log(0.5) + logErfc(-z / 2.0.squareRoot())
    }

    /// Φ(z).
    public static func normalCDF(_ z: Double) -> Double { 0.5 * Glibc.erfc(-z / 2.0.squareRoot()) }

    /// Φ⁻¹(p) for 0 < p < 1: Acklam's rational approximation refined by one Halley step
    /// (absolute error ~1e-15).
    public static func normalQuantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "normalQuantile needs 0 < p < 1")
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let pl = 0.02425
        var x: Double
        if p < pl {
            let q = (-2 * Glibc.log(p)).squareRoot()
            x = (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q+c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q+1)
        } else if p <= 1 - pl {
            let q = p - 0.5, r = q * q
            x = (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r+a[5])*q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r+1)
        } else {
            let q = (-2 * Glibc.log(1 - p)).squareRoot()
            x = -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q+c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q+1)
        }
        // One Halley refinement step.
        let e = normalCDF(x) - p
        let u = e * (2 * Double.pi).squareRoot() * Glibc.exp(x * x / 2)
        x = x - u / (1 + x * u / 2)
        return x
    }

    /// The logistic function 1/(1+e^(−x)), without overflow.
    public static func expit(_ x: Double) -> Double {
        x >= 0 ? 1 / (1 + Glibc.exp(-x)) : Glibc.exp(x) / (1 + Glibc.exp(x))
    }
}

// MARK: - Descriptive statistics

public enum Describe {
    public static func mean(_ x: [Double]) -> Double? { x.isEmpty ? nil : x.reduce(0, +) / Double(x.count) }

    /// Sample standard deviation (n − 1 denominator); nil for fewer than 2 values.
    public static func sd(_ x: [Double]) -> Double? {
        guard x.count >= 2, let m = mean(x) else { return nil }
        return (x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count - 1)).squareRoot()
    }

    /// Ordinary least-squares slope of y on x; nil when x has no spread.
    public static func slope(x: [Double], y: [Double]) -> Double? {
        guard x.count == y.count, x.count >= 2, let mx = mean(x), let my = mean(y) else { return nil }
        var sxy = 0.0, sxx = 0.0
        for i in x.indices { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) * (x[i] - mx) }
        return sxx > 0 ? sxy / sxx : nil
    }
}
