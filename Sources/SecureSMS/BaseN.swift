// MARK: - Exact base conversion

/// Big-endian conversion between byte strings and fixed-length digit strings in any
/// radix ≤ 256, by schoolbook long division (exact; the numbers here are ~1 100 bits).
public enum BaseN {
    /// `bytes` as a big-endian integer written with exactly `digits` digits of `radix`
    /// (most significant first). Returns nil when the number needs more digits.
    public static func encode(_ bytes: [UInt8], radix: Int, digits: Int) -> [Int]? {
        var num = bytes.map { Int($0) }  // base-256 digits, most significant first
        var out = [Int](repeating: 0, count: digits)
        var pos = digits - 1
        while num.contains(where: { $0 != 0 }) {
            guard pos >= 0 else { return nil }
            var rem = 0
            for i in num.indices {
                let cur = rem * 256 + num[i]
                num[i] = cur / radix
                rem = cur % radix
            }
            out[pos] = rem
            pos -= 1
        }
        return out
    }

    /// Digits of `radix` (most significant first) as a big-endian integer of exactly
    /// `byteCount` bytes. Returns nil when the number does not fit.
    public static func decode(_ digits: [Int], radix: Int, byteCount: Int) -> [UInt8]? {
        var num = [Int](repeating: 0, count: byteCount)  // base-256, most significant first
        for d in digits {
            guard d >= 0 && d < radix else { return nil }
            var carry = d
            for i in stride(from: byteCount - 1, through: 0, by: -1) {
                let cur = num[i] * radix + carry
                num[i] = cur & 0xFF
                carry = cur >> 8
            }
            if carry != 0 { return nil }
        }
        return num.map { UInt8($0) }
    }
}
