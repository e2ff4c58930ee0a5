/// An integer written as ASCII decimal digits straight into a byte buffer (`String(v)`
/// made a string per number), shared by the CSV writer and `participant.json`, whose
/// modules must not depend on each other.
public enum DecimalDigits {
    /// Appends `v`'s digits, after a `-` when it is negative, to `bytes`.
    @inlinable
    public static func append(_ v: Int, to bytes: inout [UInt8]) {
        if v < 0 { bytes.append(0x2D) }
        var m = v.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = digits.count
            repeat {
                n -= 1
                digits[n] = 0x30 + UInt8(m % 10)
                m /= 10
            } while m > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[n...]))
        }
    }
}
