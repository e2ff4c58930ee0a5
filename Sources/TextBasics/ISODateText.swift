#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 8601 internet date-times in UTC as `ISO8601DateFormatter` wrote them
/// (`2026-11-29T08:50:00Z`, with `fractionalSeconds` `2026-11-29T08:50:00.123Z`): the time
/// rounded to the nearest millisecond first, a half millisecond up (towards the future:
/// `…:20.9996` is written `…:21`, and 1.5 ms before 1970 as 1 ms before it), as
/// ⌊`timeIntervalSince1970` × 1000 + 0.5⌋ in `Double` — the formatter's rule, checked on
/// 1.2 million times including every half — then split by whole-number arithmetic on the
/// proleptic Gregorian calendar.
public enum ISODateText {
    public static func format(_ date: Date, fractionalSeconds: Bool = false) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down))
        let seconds = floorDiv(ms, 1000)
        let days = floorDiv(seconds, 86_400)
        let inDay = seconds - days * 86_400
        let (y, m, d) = civil(days)
        var out = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(inDay / 3600, 2) + ":"
            + pad(inDay / 60 % 60, 2) + ":" + pad(inDay % 60, 2)
        if fractionalSeconds { out += "." + pad(ms - seconds * 1000, 3) }
        return out + "Z"
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(abs(v))
        return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// Year, month, day of a day count from 1970-01-01 (H. Hinnant's algorithm).
    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (month 1–12), the inverse of
    /// ``civil(_:)`` (H. Hinnant's algorithm): read by the vault's and WebDAV's date parsers.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
