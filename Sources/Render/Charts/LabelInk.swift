#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The colour of a label drawn on a coloured mark (a heatmap cell, a timeline span),
/// chosen against that mark in each colour scheme (docs/charts.md, "Dark scheme").
///
/// The label's `fill` attribute is its ink against the mark as drawn (the light scheme,
/// and any copy of the chart outside a page); its class `ink-dark-black` or
/// `ink-dark-white` names its ink against the colour the page's style sheet gives the
/// mark in the dark scheme (``darkScheme``). Black or white, whichever contrasts more,
/// is at least 4.58:1 on any colour.
enum LabelInk {
    static let black = "#000000"
    static let white = "#ffffff"

    /// The Okabe–Ito palette as `Site/dossier.css` draws it in the dark scheme
    /// (`--chart-1` … `--chart-8`), in ``ChartStyle/palette`` order.
    static let darkPalette = ["#4fa3e0", "#f0b23a", "#2cc394", "#f07a3a", "#e29ac4", "#8fd0f5", "#f0e442", "#e7e9ee"]
    /// `--chart-nodata` in the dark scheme (the literal `#f6f6f6` / `#f4f4f4`).
    static let darkNoData = "#242932"

    /// The colour a literal fill takes in the dark scheme inside a page: palette colours
    /// and the no-data grey are mapped by the style sheet; every other colour stays.
    static func darkScheme(_ fill: String) -> String {
        if let i = ChartStyle.palette.firstIndex(of: fill) { return darkPalette[i] }
        if fill == "#f6f6f6" || fill == "#f4f4f4" { return darkNoData }
        return fill
    }

    /// ` fill="…" class="ink-dark-…"`: the attributes of a label on `fill`.
    static func attributes(on fill: String) -> String {
        let dark = ink(on: darkScheme(fill)) == black ? "ink-dark-black" : "ink-dark-white"
        return " fill=\"\(ink(on: fill))\" class=\"\(dark)\""
    }

    /// Black or white, whichever has the higher contrast with `fill` (the palette's
    /// answers from a table: this runs for every timeline label).
    static func ink(on fill: String) -> String {
        if let i = ChartStyle.palette.firstIndex(of: fill) { return paletteInks[i] }
        if let i = darkPalette.firstIndex(of: fill) { return darkPaletteInks[i] }
        return inkByContrast(on: fill)
    }

    static let paletteInks = ChartStyle.palette.map(inkByContrast)
    static let darkPaletteInks = darkPalette.map(inkByContrast)

    /// ``ink(on:)`` worked out from the WCAG 2 contrast ratios: `fill`'s luminance once,
    /// black's and white's from constants (each contrast worked out from the colours' text
    /// was four luminances per label: `inkByContrastOfTexts` in the tests).
    static func inkByContrast(on fill: String) -> String {
        let l = luminance(fill)
        return contrast(luminances: l, blackLuminance) >= contrast(luminances: l, whiteLuminance) ? black : white
    }

    static let blackLuminance = luminance(black)
    static let whiteLuminance = luminance(white)

    /// WCAG 2 relative luminance of `#rrggbb`.
    static func luminance(_ hex: String) -> Double {
        let lin = HeatmapChart.rgb(hex).map { v -> Double in
            let s = Double(v) / 255
            return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    }

    /// WCAG 2 contrast ratio of two `#rrggbb` colours, (L1 + 0.05) / (L2 + 0.05) ≥ 1.
    static func contrast(_ a: String, _ b: String) -> Double {
        contrast(luminances: luminance(a), luminance(b))
    }

    static func contrast(luminances la: Double, _ lb: Double) -> Double {
        (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }
}
