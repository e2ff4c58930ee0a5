import Foundation
import Testing
@testable import Privacy
import SplitMix64

// MARK: - Sensitivities: adding or removing one person moves a statistic by at most Δ


@Suite struct SensitivityTests {
    /// Data sets with values well outside the clamp range, and each neighbour that
    /// removes one element or adds one extreme one.
    func neighbours(_ seed: UInt64) -> [(a: [Double], b: [Double])] {
        var g = SplitMix64(seed: seed)
        let n = Int.random(in: 0...40, using: &g)
        let xs = (0..<n).map { _ in Double.random(in: -500...3000, using: &g) }
        var out: [([Double], [Double])] = []
        for i in xs.indices { var b = xs; b.remove(at: i); out.append((xs, b)) }
        for extra in [-1e9, 1e9, Double.nan, Double.random(in: 0...1000, using: &g)] { out.append((xs, xs + [extra])) }
        return out
    }

    @Test(arguments: 1...30)
    func clampedSumsMoveByAtMostTheirSensitivity(seed: Int) {
        for (a, b) in neighbours(UInt64(seed)) {
            let sa = Mechanisms.gridSum(a, lower: 100, upper: 1100, steps: 250)
            let sb = Mechanisms.gridSum(b, lower: 100, upper: 1100, steps: 250)
            #expect(abs(sa - sb) <= 250)
            let qa = Mechanisms.gridSquareSum(a, lower: 100, upper: 1100, steps: 250)
            let qb = Mechanisms.gridSquareSum(b, lower: 100, upper: 1100, steps: 250)
            #expect(abs(qa - qb) <= 250 * 250)
        }
    }

    @Test(arguments: 1...30)
    func aHistogramMovesByOneInOneCell(seed: Int) {
        for (a, b) in neighbours(UInt64(seed)) {
            let ha = Mechanisms.histogram(a, lower: 0, upper: 1000, bins: 12)
            let hb = Mechanisms.histogram(b, lower: 0, upper: 1000, bins: 12)
            #expect(zip(ha, hb).reduce(0) { $0 + abs($1.0 - $1.1) } == 1)
            #expect(ha.reduce(0, +) == a.count)
        }
    }

    @Test func quantilesOfAnExactHistogramFallInTheRightBin() {
        var g = SplitMix64(seed: 9)
        let xs = (0..<2000).map { _ in Double.random(in: 0...1000, using: &g) }.sorted()
        let h = Mechanisms.histogram(xs, lower: 0, upper: 1000, bins: 50)
        let q = Mechanisms.quantiles(h, lower: 0, upper: 1000, [0.25, 0.5, 0.75])!
        for (p, v) in zip([0.25, 0.5, 0.75], q) {
            #expect(abs(v - xs[Int(p * Double(xs.count)) - 1]) <= 20, "quantile \(p)")
        }
        #expect(Mechanisms.quantiles([0, -3, 0], lower: 0, upper: 1, [0.5]) == nil)
    }

    @Test func theAccountantAddsSpendsUnderBasicComposition() {
        var acc = Accountant(total: Rational.milli(4000))
        let a = acc.spend("counts", share: Rational(1, 16))
        let b = acc.spend("means", share: Rational(1, 2))
        #expect(a == Rational(1, 4) && b == Rational(2))
        #expect(acc.used == Rational(9, 4))
    }
}

@Suite struct LedgerTests {
    @Test func aLedgerRoundTripsAndSumsItsSpends() throws {
        var l = Ledger()
        l.entries.append(
            .init(release: "ab12", epsilonMilli: 4000, delta: "0", section: "game", published: "2026-11-27T20:00:00Z"))
        l.entries.append(
            .init(release: "cd34", epsilonMilli: 250, delta: "0", section: "game", published: "2026-11-28T08:00:00Z"))
        let back = try Ledger.parse(l.text)
        #expect(back == l)
        #expect(back.spentMilli == 4250)
        #expect(back.contains(release: "cd34") && !back.contains(release: "ef56"))
    }

    @Test func aBadLedgerLineIsNamed() {
        let text =
            Ledger.header
            + "\nrelease=ab epsilon=1 delta=0 section=game published=2026-11-27T20:00:00Z\nrelease=cd epsilon=-2 "
            + "delta=0 section=game published=2026-11-27T20:00:00Z\n"
        #expect(throws: LedgerError.self) { try Ledger.parse(text) }
        do { _ = try Ledger.parse(text) } catch { #expect(error.line == 4 && error.message.contains("epsilon")) }
    }

    /// A release listed twice counts once when the lines agree (a merge that kept both
    /// copies); with another ε it is refused, never read as the first line's ε alone.
    @Test func aReleaseListedTwiceCountsOnceOrIsRefused() throws {
        let line = "release=ab epsilon=1 delta=0 section=game published=2026-11-27T20:00:00Z"
        let twice = try Ledger.parse(Ledger.header + "\n" + line + "\n" + line + "\n")
        #expect(twice.entries.count == 1 && twice.spentMilli == 1000)
        let nine = line.replacingOccurrences(of: "epsilon=1", with: "epsilon=9")
        let other = Ledger.header + "\n" + line + "\n" + nine + "\n"
        do { _ = try Ledger.parse(other); Issue.record("accepted") } catch {
            #expect(error.line == 4 && error.message.contains("listed again") && error.message.contains("line 3"))
        }
    }

    @Test func publishedIsAUTCTime() throws {
        let base = "release=ab epsilon=1 delta=0 section=game published="
        for good in ["2026-11-27T20:00:00Z", "2024-02-29T23:59:59Z", "2000-02-29T00:00:00Z"] {
            #expect(try Ledger.parse(base + good).entries.count == 1, "\(good)")
        }
        let bad = ["yesterday", "2026-11-27", "2026-11-27T20:00:00", "2026-11-27T20:00:00.000Z",
                   "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-11-27T24:00:00Z",
                   "2026-11-27t20:00:00Z", "+026-11-27T20:00:00Z"]
        for bad in bad {
            do { _ = try Ledger.parse(base + bad); Issue.record("accepted \(bad)") } catch {
                #expect(error.line == 1 && error.message.contains("published"), "\(bad)")
            }
        }
    }

    @Test func epsilonTextIsExactInThousandths() {
        #expect(PrivacyNumber.milli("4") == 4000)
        #expect(PrivacyNumber.milli("0.25") == 250)
        #expect(PrivacyNumber.milli("1.005") == 1005)
        #expect(
            PrivacyNumber.milli("1.0005") == nil && PrivacyNumber.milli("-1") == nil && PrivacyNumber.milli("x") == nil)
        #expect(PrivacyNumber.text(milli: 250) == "0.25" && PrivacyNumber.text(milli: 4000) == "4")
    }
}
