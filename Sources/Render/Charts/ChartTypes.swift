#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Options

/// Options shared by every chart in ``Charts``.
///
/// `title` and `description` become the SVG `<title>` and `<desc>` (read by screen
/// readers, referenced by `aria-labelledby`); the title is also drawn at the top of the
/// chart so a chart copied out of its page still says what it shows.
public struct ChartOptions: Sendable {
    /// Short name of the chart (the `<title>`, and the visible heading).
    public var title: String
    /// One or two sentences saying what the chart shows (the start of `<desc>`).
    public var description: String
    /// Size of the drawing in user units (the `viewBox`); the SVG itself is 100% wide.
    public var width: Double
    public var height: Double
    /// Axis titles; empty means none.
    public var xLabel: String
    public var yLabel: String
    /// Unique id prefix for the `<title>`, `<desc>` and gradient ids. `nil` derives
    /// one deterministically from the title and description (see docs/charts.md).
    public var id: String?
    /// Append a plain-text summary of the data to `<desc>` (visually hidden).
    public var dataSummary: Bool
    /// Draw the title as visible text at the top of the chart.
    public var showTitle: Bool
    /// Force the value-axis range; `nil` fits the data (with nice tick values).
    public var yMin: Double?
    public var yMax: Double?
    /// Force the x-axis range of numeric x axes (line, scatter, histogram, timeline).
    public var xMin: Double?
    public var xMax: Double?
    /// Write each bar's value (or each heatmap cell's value when no labels are given).
    public var showValues: Bool
    /// The escaped `<desc>` text of the wide drawing, which the narrow drawing of
    /// ``Charts/responsive(_:_:)`` reuses instead of summarising the data again (the
    /// summary does not depend on the drawing's size).
    var sharedDescription: String? = nil
    /// `chart-wide` or `chart-narrow`: the class ``Charts/responsive(_:_:)`` gives the
    /// drawing, after `dossier-chart`.
    var drawingClass: String? = nil

    public init(title: String,
                description: String = "",
                width: Double = 640,
                height: Double = 320,
                xLabel: String = "",
                yLabel: String = "",
                id: String? = nil,
                dataSummary: Bool = true,
                showTitle: Bool = true,
                yMin: Double? = nil,
                yMax: Double? = nil,
                xMin: Double? = nil,
                xMax: Double? = nil,
                showValues: Bool = false) {
        self.title = title
        self.description = description
        self.width = width
        self.height = height
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.id = id
        self.dataSummary = dataSummary
        self.showTitle = showTitle
        self.yMin = yMin
        self.yMax = yMax
        self.xMin = xMin
        self.xMax = xMax
        self.showValues = showValues
    }
}

// MARK: - Data

/// One point of a line or scatter series. `label` is shown as the point's tooltip.
public struct XYPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var label: String?
    /// The x the tooltip names when the point is drawn off its value (a scatter's points
    /// set side by side, ``Charts/sideBySide(_:width:)``); nil: `x`.
    public var xValue: Double?
    public init(x: Double, y: Double, label: String? = nil, xValue: Double? = nil) {
        self.x = x
        self.y = y
        self.label = label
        self.xValue = xValue
    }
}

/// A named series of points (line, scatter, overlays and trend lines).
public struct XYSeries: Sendable, Equatable {
    public var name: String
    public var points: [XYPoint]
    public init(name: String, points: [XYPoint]) {
        self.name = name
        self.points = points
    }
    /// Convenience: points from `(x, y)` pairs.
    public init(name: String, xy: [(Double, Double)]) {
        self.name = name
        self.points = xy.map { XYPoint(x: $0.0, y: $0.1) }
    }
}

/// One series of a bar chart: one value per category (`nil` = no bar).
public struct BarSeries: Sendable, Equatable {
    public var name: String
    public var values: [Double?]
    public init(name: String, values: [Double?]) {
        self.name = name
        self.values = values
    }
}

/// One group of a box plot.
public struct BoxGroup: Sendable, Equatable {
    public var name: String
    public var values: [Double]
    public init(name: String, values: [Double]) {
        self.name = name
        self.values = values
    }
}

/// A span on a timeline lane, from `start` to `end` (same unit as the x axis, e.g.
/// seconds). A span with `end == start` is drawn as an instant (a diamond). Spans of
/// the same `category` share a colour; the legend lists categories.
public struct TimelineSpan: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var label: String
    public var category: String
    public init(start: Double, end: Double, label: String = "", category: String = "") {
        self.start = start
        self.end = end
        self.label = label
        self.category = category
    }
}

/// One horizontal lane of a timeline.
public struct TimelineLane: Sendable, Equatable {
    public var name: String
    public var spans: [TimelineSpan]
    public init(name: String, spans: [TimelineSpan]) {
        self.name = name
        self.spans = spans
    }
}

/// Colour scale of a heatmap.
public enum HeatmapScale: Sendable, Equatable {
    /// Viridis-like, light (low) to dark (high); for counts and rates.
    case sequential
    /// Blue – white – vermillion around `center`; for signed differences.
    case diverging(center: Double)
}
