// HTTPDate's own parser (which replaced DateFormatter, so the binary carries no ICU)
// against the DateFormatter patterns it replaced, on many dates in all three forms.
import Foundation
import Testing
@testable import WebDAV

private func formatter(_ pattern: String) -> DateFormatter {
    let df = DateFormatter()
    df.locale = Locale(identifier: "en_US_POSIX")
    df.timeZone = TimeZone(identifier: "GMT")
    df.dateFormat = pattern
    return df
}

@Test func httpDateParsesWhatDateFormatterParsed() {
    let forms = [formatter("EEE, dd MMM yyyy HH:mm:ss zzz"), formatter("EEEE, dd-MMM-yy HH:mm:ss zzz"),
                 formatter("EEE MMM d HH:mm:ss yyyy")]
    let writers = [formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'"), formatter("EEEE, dd-MMM-yy HH:mm:ss 'GMT'"),
                   formatter("EEE MMM d HH:mm:ss yyyy")]
    for _ in 0..<2000 {
        let d = Date(timeIntervalSince1970: Double(Int.random(in: -500_000_000...2_000_000_000)))
        for (w, f) in zip(writers, forms) {
            let text = w.string(from: d)
            #expect(HTTPDate.parse(text) == f.date(from: text), "\(text)")
        }
    }
    #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == forms[2].date(from: "Sun Nov  6 08:49:37 1994"))
}
