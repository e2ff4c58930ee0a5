// Text basics without ICU: everything in this module uses only the Swift standard
// library and the C library, so a module that calls these instead of Foundation's
// NSString-bridged methods does not link FoundationInternationalization and ICU's
// data into the binary (docs/benchmarks.md, "5. Start-up").
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TextBasics

/// `format` filled in by the C library's `vsnprintf`, as `printf` writes it: the same
/// bytes as Foundation's `String(format:)` gives for the numeric conversions Dossier
/// uses (`%d`, `%03d`, `%x`, `%02X`, `%016llx`, `%.2f`, `%.3g`, `%.2e`, `%%`), which
/// Foundation also hands to the C library. Decimal point `.` (no locale is set).
/// Not for `%@` or `%s`: Swift strings are not C arguments; concatenate them instead.
public func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    withVaList(arguments) { list in
        var small = [CChar](repeating: 0, count: 64)
        let n = Int(vsnprintf(&small, small.count, format, list))
        if n < small.count { return String(decoding: small.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return withVaList(arguments) { again in
            var big = [CChar](repeating: 0, count: n + 1)
            _ = vsnprintf(&big, big.count, format, again)
            return String(decoding: big.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

/// `x` with exactly `decimals` digits after the point, as `%.<decimals>f` prints it
/// (correctly rounded from the exact binary value, ties to even; `nan`, `inf`, `-inf`;
/// `-0.00` for small negatives).
public func fixedPoint(_ x: Double, decimals: Int) -> String {
    cFormat("%.*f", Int32(decimals), x)
}

/// Bytes as two lowercase hex digits each (`%02x` per byte, joined).
public func lowercaseHex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
    hex(bytes, digits: Array("0123456789abcdef".utf8))
}

/// Bytes as two uppercase hex digits each (`%02X` per byte, joined).
public func uppercaseHex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
    hex(bytes, digits: Array("0123456789ABCDEF".utf8))
}

private func hex<S: Sequence>(_ bytes: S, digits: [UInt8]) -> String where S.Element == UInt8 {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

extension Sequence where Element == UInt8 {
    /// The bytes as lowercase hex, two digits each (`map { cFormat("%02x", $0) }.joined()`).
    public var hexString: String { lowercaseHex(self) }
    /// The bytes as uppercase hex, two digits each (`%02X` per byte).
    public var upperHexString: String { uppercaseHex(self) }
}
