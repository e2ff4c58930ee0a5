import Testing
@testable import Render

/// Scatter series on shared whole x values are drawn side by side (docs/charts.md,
/// "Side by side"): this study's points no longer hide under a cohort's.
@Suite struct SideBySideTests {
    let study = XYSeries(
        name: "this study",
        points: [
            XYPoint(x: 6, y: 1, label: "S1"), XYPoint(x: 6, y: 2, label: "S2"),
            XYPoint(x: 8, y: 3, label: "S1")
        ])
    let cohort = XYSeries(name: "desktop", points: [XYPoint(x: 6, y: 1, label: "p1")])

    @Test func seriesGetTheirOwnBandsAndPointsSpreadInThem() {
        let moved = Charts.sideBySide([study, cohort])
        // Two series: bands of 0.4 centred at −0.2 and +0.2; two points of one band at ±0.08.
        let xs = moved[0].points.map(\.x), cx = moved[1].points.map(\.x)
        #expect(abs(xs[0] - 5.72) < 1e-9 && abs(xs[1] - 5.88) < 1e-9 && abs(xs[2] - 7.8) < 1e-9)
        #expect(abs(cx[0] - 6.2) < 1e-9)
        #expect(moved[0].points.map(\.xValue) == [6, 6, 8] && moved[1].points.map(\.xValue) == [6])
        #expect(moved.map(\.name) == ["this study", "desktop"] && moved[0].points.map(\.y) == [1, 2, 3])
    }

    @Test func tooltipsAxisAndSummaryKeepTheRealX() {
        let svg = Charts.scatter(
            series: Charts.sideBySide([study, cohort]), options: ChartOptions(title: "t", description: "d"))
        #expect(svg.contains("this study: S1 (6, 1)") && svg.contains("desktop: p1 (6, 1)"))
        #expect(svg.contains("x from 6 to 8"))
    }
}
