/// Decimal text from whole hundredths, without `printf`: the shared fast path of
/// ``JSONValue/formatNumber(_:)``, ``ChartNumber/coord(_:)`` and the study's seconds
/// (docs/perf-study.md). Each caller states when it gives the same digits as the
/// `printf` path it stands in for; a unit test compares them.
public enum DecimalText {
    /// `k` hundredths as text: `-12.3` for -1230, `0.05` for 5, `7` for 700 —
    /// no trailing zeros, no bare point, `0` (never `-0`) for 0.
    public static func hundredths(_ k: Int64) -> String { fixed(k, places: 2) }

    /// `d` as whole hundredths when it is one to the precision of a double and
    /// 0.01 ≤ |d| < 10⁷, else nil. Such a value has at most 9 significant digits and
    /// `d` lies within ~2⁻⁵² of it (relative), so rounding `d` to 10 significant
    /// digits (`%.10g`) gives exactly these digits.
    public static func exactHundredths(_ d: Double) -> Int64? { exactMultiple(d, of: 100) }

    /// `d` as whole thousandths when it is one to the precision of a double and
    /// 0.001 ≤ |d| < 10⁷, else nil: a millisecond count in seconds (the keystroke
    /// dynamics tables' cells). Such a value has at most 10 significant digits and `d`
    /// lies within 2⁻⁵³ of it (relative: `d · 1000` rounded to that whole number), far
    /// inside half a unit of the tenth digit, so `%.10g` prints exactly these digits.
    public static func exactThousandths(_ d: Double) -> Int64? { exactMultiple(d, of: 1000) }

    /// `d · scale` when it is a whole number and 1 ≤ |d · scale|, |d| < 10⁷; else nil.
    private static func exactMultiple(_ d: Double, of scale: Double) -> Int64? {
        let a = abs(d)
        guard a >= 1 / scale, a < 1e7 else { return nil }
        let k = d * scale   // |k| < 10¹⁰: whole when its conversion to Int64 gives it back
        let r = Int64(k)
        return Double(r) == k ? r : nil
    }

    /// `k` thousandths as text: `-1.23` for -1230, `0.005` for 5, `7` for 7000 — no
    /// trailing zeros, no bare point, `0` (never `-0`) for 0.
    public static func thousandths(_ k: Int64) -> String { fixed(k, places: 3) }

    /// `k / 10^places` (`places` ≤ 3) without trailing zeros or a bare point, `0` for 0:
    /// the digits written backwards into a stack buffer and made one string (round six
    /// built hundredths by `String(whole)` and appends, a string each).
    static func fixed(_ k: Int64, places: Int) -> String {
        if k == 0 { return "0" }
        return withFixed(k, places: places) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 of ``fixed(_:places:)``, which lives on the stack for
    /// the call: a writer of bytes (``SVGWriter``) copies it without making a string.
    @inline(__always)
    static func withFixed<R>(_ k: Int64, places: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes: sign, 19 digits, point
        return withUnsafeMutableBytes(of: &buffer) { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var i = b.count
            var a = k.magnitude
            var scale: UInt64 = 1, shown = places
            for _ in 0..<places { scale *= 10 }
            var frac = a % scale
            a /= scale
            if frac != 0 {
                while frac % 10 == 0 { frac /= 10; shown -= 1 }
                for _ in 0..<shown { i -= 1; b[i] = 0x30 + UInt8(frac % 10); frac /= 10 }
                i -= 1; b[i] = 0x2E                                    // "."
            }
            repeat {
                i -= 1; b[i] = 0x30 + UInt8(a % 10)
                a /= 10
            } while a > 0
            if k < 0 { i -= 1; b[i] = 0x2D }                            // "-"
            return body(UnsafeBufferPointer(rebasing: b[i...]))
        }
    }
}
