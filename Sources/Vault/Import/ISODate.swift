#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// A fast, allocation-free reader of the ISO 8601 / RFC 3339 timestamps exports carry:
/// `YYYY-MM-DD`, then optionally `T` or a space, `HH:MM[:SS[.fraction]]`, then optionally
/// `Z` or `±HH[:]MM` (no zone = UTC). Years 0001–9999; month, day, hour (0–23), minute and
/// second (0–60) in range; anything else is nil. (Creating a Foundation ISO 8601
/// formatter per date made a 10,000-item import take seconds.)
enum ISODate {
    static func parse(_ s: String) -> Date? {
        var u = Array(s.utf8)
        while let l = u.last, l == 32 || l == 9 { u.removeLast() }
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= u.count else { return nil }
            var v = 0
            for k in i..<i + n {
                guard (48...57).contains(u[k]) else { return nil }
                v = v * 10 + Int(u[k] - 48)
            }
            i += n
            return v
        }
        func take(_ c: UInt8) -> Bool {
            guard i < u.count, u[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = digits(4), take(45), let mo = digits(2), take(45), let d = digits(2),
              (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), y >= 1 else { return nil }
        var secs = Double(ISODateText.days(year: y, month: mo, day: d)) * 86400
        if i < u.count {
            guard take(84) || take(116) || take(32) else { return nil }   // T t space
            guard let h = digits(2), take(58), let mi = digits(2), h < 24, mi < 60 else { return nil }
            var sec = 0.0
            if take(58) {
                guard let ss = digits(2), ss <= 60 else { return nil }
                sec = Double(ss)
                if take(46) || take(44) {
                    var scale = 0.1, any = false
                    while i < u.count, (48...57).contains(u[i]) {
                        sec += Double(u[i] - 48) * scale; scale /= 10; i += 1; any = true
                    }
                    guard any else { return nil }
                }
            }
            secs += Double(h * 3600 + mi * 60) + sec
            if take(90) || take(122) {   // Z z
            } else if i < u.count, u[i] == 43 || u[i] == 45 {
                let sign = u[i] == 45 ? -1.0 : 1.0
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = take(58)
                guard let om = digits(2), oh < 24, om < 60 else { return nil }
                secs -= sign * Double(oh * 3600 + om * 60)
            }
        }
        guard i == u.count else { return nil }
        return Date(timeIntervalSince1970: secs)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A calendar day typed by a person (`--expires`, `--as-of`, `as_of:` in dossier.yml):
/// exactly `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar (`2026-02-30`,
/// `2025-02-29` and `2026-04-31` are refused, never rolled over), 00:00 UTC.
public enum CalendarDay {
    /// The day's 00:00 UTC, or nil for anything that is not exactly a real `YYYY-MM-DD`.
    public static func parse(_ s: String) -> Date? {
        let u = Array(s.utf8)
        guard u.count == 10, u[4] == 45, u[7] == 45 else { return nil }
        return ISODate.parse(s)
    }
}
