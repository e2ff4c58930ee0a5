// MARK: - Exact non-negative rationals for the samplers

/// A non-negative rational `num / den` in 128-bit integers. The samplers only ever
/// compare, add and multiply small rationals built from configuration (ε in
/// thousandths) and integer sensitivities, so 128 bits hold every intermediate value
/// the module allows (``Rational/init(_:_:)`` traps on overflow rather than rounding).
public struct Rational: Sendable, Hashable, CustomStringConvertible {
    public let num: UInt128
    public let den: UInt128

    public init(_ num: UInt128, _ den: UInt128 = 1) {
        precondition(den > 0, "a rational's denominator is positive")
        let g = Rational.gcd(num, den)
        self.num = num / g
        self.den = den / g
    }

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? 1 : a
    }

    /// ε given in thousandths: `milli / 1000`.
    public static func milli(_ milli: Int) -> Rational { Rational(UInt128(milli), 1000) }

    public var double: Double { Double(num) / Double(den) }
    public var floor: UInt128 { num / den }
    public var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }

    public static func * (a: Rational, b: Rational) -> Rational { Rational(a.num * b.num, a.den * b.den) }
    public static func / (a: Rational, b: Rational) -> Rational { Rational(a.num * b.den, a.den * b.num) }
    public static func + (a: Rational, b: Rational) -> Rational {
        Rational(a.num * b.den + b.num * a.den, a.den * b.den)
    }
    public static func <= (a: Rational, b: Rational) -> Bool { a.num * b.den <= b.num * a.den }
    public static func < (a: Rational, b: Rational) -> Bool { a.num * b.den < b.num * a.den }
}
