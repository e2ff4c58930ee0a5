/// Decimal text from whole hundredths, without `printf`: the shared fast path of
/// ``JSONValue/formatNumber(_:)``, ``ChartNumber/coord(_:)`` and the study's seconds
/// (docs/perf-study.md). Each caller states when it gives the same digits as the
/// `printf` path it stands in for; a unit test compares them.
public enum DecimalText {
    /// `k` hundredths as text: `-12.3` for -1230, `0.05` for 5, `7` for 700 —
    /// no trailing zeros, no bare point, `0` (never `-0`) for 0.
    public static func hundredths(_ k: Int64) -> String {
        if k == 0 { return "0" }
        let neg = k < 0
        let a = k.magnitude
        let whole = a / 100, frac = a % 100
        var s = neg ? "-" : ""
        s += String(whole)
        if frac != 0 {
            let tens = UInt8(frac / 10), ones = UInt8(frac % 10)
            s.unicodeScalars.append(".")
            s.unicodeScalars.append(Unicode.Scalar(0x30 + tens))
            if ones != 0 { s.unicodeScalars.append(Unicode.Scalar(0x30 + ones)) }
        }
        return s
    }

    /// `d` as whole hundredths when it is one to the precision of a double and
    /// 0.01 ≤ |d| < 10⁷, else nil. Such a value has at most 9 significant digits and
    /// `d` lies within ~2⁻⁵² of it (relative), so rounding `d` to 10 significant
    /// digits (`%.10g`) gives exactly these digits.
    public static func exactHundredths(_ d: Double) -> Int64? {
        let a = abs(d)
        guard a >= 0.01, a < 1e7 else { return nil }
        let k = d * 100
        let r = k.rounded()
        return r == k ? Int64(r) : nil
    }
}
