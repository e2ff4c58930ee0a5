import Testing
@testable import Render

@Test func barChartIsSVG() {
    let s = Charts.bar(categories: ["a"], series: [BarSeries(name: "x", values: [1])], options: ChartOptions(title: "T"))
    #expect(s.hasPrefix("<svg"))
}
