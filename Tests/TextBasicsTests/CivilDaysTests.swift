import Foundation
import Testing
@testable import TextBasics

/// `ISODateText.days(year:month:day:)`, the day count the vault's and WebDAV's date
/// parsers share: the inverse of `civil`, and the count Foundation's Gregorian calendar gives.
@Suite struct CivilDaysTests {
    @Test func isTheInverseOfCivilFromYearOneToYearTenThousand() {
        let first = ISODateText.days(year: 1, month: 1, day: 1), last = ISODateText.days(year: 9999, month: 12, day: 31)
        for n in stride(from: first, through: last, by: 7) {
            let (y, m, d) = ISODateText.civil(Int64(n))
            #expect(ISODateText.days(year: Int(y), month: Int(m), day: Int(d)) == n, "\(y)-\(m)-\(d)")
        }
    }

    @Test func agreesWithFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        var dates = [(1970, 1, 1), (1969, 12, 31), (2000, 2, 29), (1900, 3, 1), (2100, 2, 28), (9999, 12, 31)]
        for _ in 0..<2000 {
            dates.append((Int.random(in: 1601...9999), Int.random(in: 1...12), Int.random(in: 1...28)))
        }
        for (y, m, d) in dates {
            let date = try #require(calendar.date(from: DateComponents(year: y, month: m, day: d)))
            #expect(Double(ISODateText.days(year: y, month: m, day: d)) * 86_400 == date.timeIntervalSince1970,
                    "\(y)-\(m)-\(d)")
        }
    }
}
