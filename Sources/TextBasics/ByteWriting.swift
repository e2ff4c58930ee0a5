/// Two small byte writers shared by the writers that fill their own buffers — Render's CSV
/// records, raw.csv's buffer and participant.json's — and inlined into each of them.
public enum ByteWriting {
    /// `to.update(from:count:)`, but up to 16 bytes (nearly every field of raw.csv: a
    /// page's title, a key, a word) as two overlapping loads and stores instead of a call
    /// to `memmove`.
    @inlinable @inline(__always)
    public static func copySmall(_ from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, count n: Int) {
        let src = UnsafeRawPointer(from), dst = UnsafeMutableRawPointer(to)
        switch n {
        case 8...16:
            let head = src.loadUnaligned(as: UInt64.self)
            let tail = src.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            dst.storeBytes(of: head, as: UInt64.self)
            dst.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        case 4...7:
            let head = src.loadUnaligned(as: UInt32.self)
            let tail = src.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            dst.storeBytes(of: head, as: UInt32.self)
            dst.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        case 1...3:
            to[0] = from[0]
            to[n / 2] = from[n / 2]
            to[n - 1] = from[n - 1]
        case 0:
            break
        default:
            to.update(from: from, count: n)
        }
    }

    /// The decimal digits of `v` (a `-` first when negative) written at `out`, which has
    /// room for 21 bytes; returns how many were written. The digits are counted first and
    /// written last one first into their places.
    @inlinable @inline(__always)
    public static func writeDecimal(_ v: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var at = out
        if v < 0 { at[0] = 0x2D; at += 1 }
        var m = v.magnitude
        var n = 1
        var p: UInt = 10
        while m >= p {
            n += 1
            if n == 20 { break }      // 10²⁰ does not fit in 64 bits
            p &*= 10
        }
        var k = n
        repeat {
            k -= 1
            at[k] = 0x30 + UInt8(truncatingIfNeeded: m % 10)
            m /= 10
        } while k > 0
        return n + (v < 0 ? 1 : 0)
    }
}
