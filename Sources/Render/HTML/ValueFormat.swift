#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Values written for people (docs/design-system.md, "Values"). Side outputs (CSV,
/// JSON) keep raw numbers; pages use these.
public enum ValueFormat {
    /// A duration in seconds for reading: under 60 s (after rounding to one decimal) with one
    /// decimal (`42.5 s`, `0.8 s`); under an hour as `M min SS s` (`19 min 04 s`); from an
    /// hour as `H h MM min` (`2 h 05 min`). Seconds are rounded half away from zero to whole
    /// seconds (to whole minutes from an hour on) before splitting. Negative values get a
    /// leading `−`; non-finite values read `—`. From ``hoursOnlyFrom`` seconds on (about
    /// 31.7 million years; whole minutes would not fit the integers a page counts in) the
    /// hours are written alone as the shortest decimal that reads back as the same double
    /// (`description`, as Python's `repr` writes it): `1e300` → `2.777777777777778e+296 h`.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "—" }
        let sign = seconds < 0 ? "−" : ""
        let s = abs(seconds)
        if s >= hoursOnlyFrom { return sign + (s / 3600).description + " h" }
        let tenths = (s * 10).rounded()
        if tenths < 600 {
            // `%.1f` of k / 10 (k < 600 whole) prints k's digits with a point before the
            // last: the double lies far closer to k / 10 than to a rounding boundary.
            // Foundation's `String(format:)` was 1 % of a study build (one per participant
            // page and study-table row; docs/perf-study.md, round seven).
            let k = Int(tenths)
            return sign + String(k / 10) + "." + String(k % 10) + " s"
        }
        if s < 3600 {
            let whole = Int(s.rounded())
            if whole >= 3600 { return sign + "1 h 00 min" }
            return sign + "\(whole / 60) min " + twoDigits(whole % 60) + " s"
        }
        let minutes = Int((s / 60).rounded())
        return sign + "\(minutes / 60) h " + twoDigits(minutes % 60) + " min"
    }

    /// Where ``duration(_:)`` stops counting minutes: 10¹⁵ s.
    public static let hoursOnlyFrom = 1e15

    /// `%02d` of 0…99.
    static func twoDigits(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }

    /// `s` as shown to a reader: a leading hyphen-minus (a negative number, `-0.62`)
    /// becomes U+2212 MINUS SIGN (`−0.62`); anything else is returned unchanged. Pages and
    /// Markdown reports show numbers through this; CSV and JSON keep the ASCII `-`.
    public static func minus(_ s: String) -> String {
        s.utf8.first == UInt8(ascii: "-") ? "\u{2212}" + s.dropFirst() : s
    }

    /// `yes` / `no`.
    public static func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }

    /// An ISO date (`2024-03-07`, optionally followed by a time) as a written date
    /// (`7 March 2024`); anything else is returned unchanged.
    public static func date(_ iso: String) -> String {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                      "September", "October", "November", "December"]
        let p = iso.prefix(10).split(separator: "-")
        guard iso.count >= 10, p.count == 3, p[0].count == 4, let y = Int(p[0]), let m = Int(p[1]), let d = Int(p[2]),
              (1...12).contains(m), (1...31).contains(d) else { return iso }
        return "\(d) \(months[m - 1]) \(y)"
    }

    /// An ISO date-time (`2026-03-02T09:00:00Z`) as a written date with its UTC time
    /// (`2 March 2026, 09:00 UTC`); a bare date as ``date(_:)``; anything else unchanged.
    public static func dateTime(_ iso: String) -> String {
        let day = date(iso)
        guard day != iso else { return iso }
        let rest = Array(iso.dropFirst(10).utf8)
        // `THH:MM` (or a space) after the date, in UTC (`Z`) — the only form Dossier writes
        guard rest.count >= 6, rest[0] == UInt8(ascii: "T") || rest[0] == UInt8(ascii: " "),
            rest[3] == UInt8(ascii: ":"),
              iso.hasSuffix("Z") else { return day }
        return day + ", " + String(decoding: rest[1...5], as: UTF8.self) + " UTC"
    }

    /// Sorts category names in their natural order: numbers inside names compare by
    /// value (`3–12` before `13–17` before `30–44`), the rest by Unicode scalar values.
    public static func naturalLess(_ a: String, _ b: String) -> Bool {
        let x = chunks(a), y = chunks(b)
        for (p, q) in zip(x, y) where p != q {
            switch (p, q) {
            case let (.number(u), .number(v)): return u < v
            case (.number, .text): return true
            case (.text, .number): return false
            case let (.text(u), .text(v)): return u.unicodeScalars.lexicographicallyPrecedes(v.unicodeScalars)
            }
        }
        return x.count < y.count
    }

    enum Chunk: Equatable { case number(Double), text(String) }

    static func chunks(_ s: String) -> [Chunk] {
        var out: [Chunk] = []
        var cur = ""
        var digits = false
        for ch in s {
            let d = ch.isASCII && ch.isNumber
            if !cur.isEmpty && d != digits {
                out.append(digits ? .number(Double(cur) ?? 0) : .text(cur))
                cur = ""
            }
            digits = d
            cur.append(ch)
        }
        if !cur.isEmpty { out.append(digits ? .number(Double(cur) ?? 0) : .text(cur)) }
        return out
    }
}
