import Foundation
import Testing
@testable import Render

/// Round seven's number fast path (docs/perf-study.md, "Round seven, participant page")
/// against the printf path it stands in for.
struct ThousandthsFastPathTests {
    /// Whole thousandths (ms / 1000, the keystroke-dynamics cells) print as `%.10g`
    /// prints them, over every count to 100 s, around and beyond the bounds, at random.
    @Test func thousandthsMatchPrintf() {
        var values: [Double] = [
            0.001, -0.001, 0.0009, 0.0015, 0.0005, 1e-4, 9_999_999.999, -9_999_999.999, 9_999_999.9995,
            10_000_000.001, 12_345_678.901, -98_765_432.109, 1_234_567_890.123,
            1.0 / 3.0, 0.1 + 0.2, 2.675, 1.0005, 0.9999999999999999, 0.00099999999999999
        ]
        for ms in 1...100_000 { values.append(Double(ms) / 1000); values.append(-Double(ms) / 1000) }
        var g = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            values.append(Double(Int.random(in: -10_000_000_000...10_000_000_000, using: &g)) / 1000)
            values.append(Double(Int.random(in: -1_000_000_000_000...1_000_000_000_000,
                                            using: &g)) / 1000)  // beyond 10⁷
            values.append(Double.random(in: -1e7...1e7, using: &g))
            values.append(Double.random(in: -1...1, using: &g) / 1000)
        }
        for d in values where d != d.rounded() {
            #expect(JSONValue.formatNumber(d) == JSONValue.formatNumberPrintf(d), "\(d)")
        }
    }

    @Test func exactThousandthsRefusesWhatIsNotWholeThousandths() {
        #expect(DecimalText.exactThousandths(0.0015) == nil)
        #expect(DecimalText.exactThousandths(0.0009) == nil)
        #expect(DecimalText.exactThousandths(1e7) == nil)
        #expect(DecimalText.exactThousandths(1.0 / 3.0) == nil)
        #expect(DecimalText.exactThousandths(12.345) == 12_345)
        #expect(DecimalText.exactThousandths(-0.007) == -7)
        #expect(DecimalText.thousandths(-1230) == "-1.23")
        #expect(DecimalText.thousandths(5) == "0.005")
        #expect(DecimalText.thousandths(50) == "0.05")
        #expect(DecimalText.thousandths(7000) == "7")
        #expect(DecimalText.thousandths(0) == "0")
        #expect(DecimalText.thousandths(Int64.min) == "-9223372036854775.808")
        #expect(DecimalText.thousandths(Int64.max) == "9223372036854775.807")
    }

    /// `ValueFormat.duration` without `String(format:)` against the printf formatting it
    /// replaced (kept here): every tenth to 70 s, around the minute and hour bounds,
    /// negatives, at random.
    @Test func durationsAsPrintfWroteThem() {
        func reference(_ seconds: Double) -> String {
            guard seconds.isFinite else { return "—" }
            let sign = seconds < 0 ? "−" : ""
            let s = abs(seconds)
            let tenths = (s * 10).rounded() / 10
            if tenths < 60 { return sign + String(format: "%.1f s", tenths) }
            if s < 3600 {
                let whole = Int(s.rounded())
                if whole >= 3600 { return sign + "1 h 00 min" }
                return sign + "\(whole / 60) min " + String(format: "%02d s", whole % 60)
            }
            let minutes = Int((s / 60).rounded())
            return sign + "\(minutes / 60) h " + String(format: "%02d min", minutes % 60)
        }
        var values: [Double] = [
            0, -0.0, 0.04, 0.05, 0.049999, 59.94, 59.95, 59.96, 60, 599.5, 3599.4, 3599.5, 3600, 35_999.9,
            86_400, 1e7, -0.05, -59.96, -3600, .infinity, -.infinity, .nan
        ]
        for k in 0...700 {
            values.append(Double(k) / 10); values.append(Double(k) / 10 + 0.05); values.append(-Double(k) / 10)
        }
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            values.append(Double.random(in: -100...100, using: &g))
            values.append(Double.random(in: 0...20_000, using: &g))
            values.append(Double(Int.random(in: 0...10_000_000, using: &g)) / 1000)
        }
        for v in values { #expect(ValueFormat.duration(v) == reference(v), "\(v)") }
    }
}
