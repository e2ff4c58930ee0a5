import Foundation
import RecallStudy
import Testing
@testable import DossierKit

/// The integer path of `RecallRender.seconds(ms:)` against `formatSeconds` (`%.2f`),
/// the reference path it stands in for (docs/perf-study.md).
struct RecallRenderTests {
    @Test func secondsFromMillisecondsMatchFormatSeconds() {
        var values = Array(0...25_000) + [-1, -5, -15, -1234, 999_995, 1_000_005, 86_400_000, 3_600_004, 999_999_999_999]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { values.append(Int.random(in: 0...10_000_000_000, using: &g)) }
        for ms in values {
            #expect(RecallRender.seconds(ms: ms) == formatSeconds(Double(ms) / 1000), "\(ms)")
        }
        #expect(RecallRender.seconds(nil as Int?) == "—")
    }
}
