#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - The desktop Rolled Up summary (seed Appendix B) and the study table

/// A participants × strings table of seconds in the Appendix B layout: string columns
/// ordered by length (ties by presentation order), complete and incomplete participants
/// apart, blank cells for missing values.
public struct CohortTable: Sendable, Hashable, Codable {
    public struct Column: Sendable, Hashable, Codable {
        /// Presentation order (1–10): the string number.
        public var order: Int
        public var string: String
        public var length: Int
    }
    public struct Participant: Sendable, Hashable, Codable {
        public var id: String
        /// One value per column (seconds), `nil` = blank.
        public var values: [Double?]
    }
    /// A name for the cohort (e.g. the file name).
    public var name: String
    public var columns: [Column]
    public var complete: [Participant]
    public var incomplete: [Participant]

    public init(name: String, columns: [Column], complete: [Participant], incomplete: [Participant]) {
        self.name = name
        self.columns = columns
        self.complete = complete
        self.incomplete = incomplete
    }

    /// The columns of a study's strings in Appendix B order (length, then presentation order).
    public static func columns(for strings: StringSet) -> [Column] {
        strings.strings.enumerated()
            .map { Column(order: $0.offset + 1, string: $0.element, length: $0.element.count) }
            .sorted { ($0.length, $0.order) < ($1.length, $1.order) }
    }

    /// The table as CSV rows in the fixture's layout (`label,s1…` header, `order`,
    /// `string`, `string length`, `section,complete`, rows, `section,incomplete`, rows).
    /// Numbers use at most two decimals, trailing zeros dropped.
    public func rows() -> [[String]] {
        let n = columns.count
        var out: [[String]] = []
        out.append(["label"] + (1...max(n, 1)).prefix(n).map { "s\($0)" })
        out.append(["order"] + columns.map { String($0.order) })
        out.append(["string"] + columns.map(\.string))
        out.append(["string length"] + columns.map { String($0.length) })
        func section(_ name: String) -> [String] { ["section", name] + Array(repeating: "", count: max(0, n - 1)) }
        out.append(section("complete"))
        for p in complete { out.append([p.id] + p.values.map { $0.map(formatSeconds) ?? "" }) }
        out.append(section("incomplete"))
        for p in incomplete { out.append([p.id] + p.values.map { $0.map(formatSeconds) ?? "" }) }
        return out
    }

    /// Mean of each column over complete participants (`nil` when no values).
    public func columnMeans(includeIncomplete: Bool = false) -> [Double?] {
        let ps = includeIncomplete ? complete + incomplete : complete
        return columns.indices.map { c in
            let v = ps.compactMap { $0.values[c] }
            return v.isEmpty ? nil : v.reduce(0, +) / Double(v.count)
        }
    }
}

/// Seconds with at most two decimals, trailing zeros removed (`1.30` → `1.3`, `5.00` → `5`).
public func formatSeconds(_ s: Double) -> String {
    // The study summary formats ~60,000 of these per build (every participant's
    // Appendix B row): round in binary where that provably gives printf's digits.
    if let k = SecondsText.roundedHundredths(s) { return SecondsText.hundredths(k) }
    return formatSecondsPrintf(s)
}

/// The reference path of ``formatSeconds(_:)``: `%.2f`, trailing zeros removed.
func formatSecondsPrintf(_ s: Double) -> String {
    var t = cFormat("%.2f", s)
    if t.contains(".") {
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
    }
    return t == "-0" ? "0" : t
}

public enum DesktopCohort {
    public static func load(_ url: URL, display: String? = nil) throws -> CohortTable {
        let name = display ?? url.path
        let rows = try CSVLines.load(url, display: name, what: "desktop Rolled Up")
        return try parse(rows: rows, file: name, name: url.deletingPathExtension().lastPathComponent)
    }

    /// Parses the Appendix B layout (see ``CohortTable/rows()``). The label column may
    /// also read `participant` for the header; rows before `section` must be `order`,
    /// `string` and `string length` (any order); participants before any `section` row
    /// count as complete.
    public static func parse(_ text: String, file: String, name: String) throws -> CohortTable {
        try parse(rows: CSVLines.parse(text, file: file), file: file, name: name)
    }

    static func parse(rows all: [CSVRow], file: String, name: String) throws -> CohortTable {
        let rows = all.filter { !$0.fields.allSatisfy { $0.isEmpty } }
        guard let header = rows.first else { throw RecallError(file: file, line: nil, "the file is empty") }
        let n = header.fields.count - 1
        guard n >= 1 else { throw RecallError(file: file, line: header.line, "no string columns") }
        var order: [Int]?, strs: [String]?, lengths: [Int]?
        var complete: [CohortTable.Participant] = [], incomplete: [CohortTable.Participant] = []
        var inIncomplete = false
        var seen: Set<String> = []
        for r in rows.dropFirst() {
            var f = r.fields
            guard f.count <= n + 1 else {
                throw RecallError(file: file, line: r.line, "\(f.count) columns; the header has \(n + 1)")
            }
            while f.count < n + 1 { f.append("") }
            let label = f[0].trimmingWhitespace()
            let cells = Array(f.dropFirst())
            switch label.lowercased() {
            case "order":
                order = try cells.map { c in
                    guard let v = Int(c.trimmingWhitespace()), v >= 1 else {
                        throw RecallError(file: file, line: r.line, "order must be whole numbers ≥ 1, got \"\(c)\"")
                    }
                    return v
                }
            case "string":
                strs = cells
            case "string length":
                lengths = try cells.map { c in
                    guard let v = Int(c.trimmingWhitespace()), v >= 1 else {
                        throw RecallError(file: file, line: r.line,
                                          "string length must be whole numbers ≥ 1, got \"\(c)\"")
                    }
                    return v
                }
            case "section", "participant↓", "participant":
                let s = cells.first?.trimmingWhitespace().lowercased() ?? ""
                if label.lowercased() == "section" {
                    switch s {
                    case "complete": inIncomplete = false
                    case "incomplete": inIncomplete = true
                    default:
                        throw RecallError(file: file, line: r.line,
                                          "section must be complete or incomplete, got \"\(cells.first ?? "")\"")
                    }
                }
            case "incomplete":
                inIncomplete = true
            default:
                guard !label.isEmpty else {
                    throw RecallError(file: file, line: r.line,
                                      "a participant row needs a participant number in the first column")
                }
                if seen.contains(label) {
                    throw RecallError(file: file, line: r.line, "participant \(label) appears twice")
                }
                seen.insert(label)
                let values: [Double?] = try cells.map { c in
                    let t = c.trimmingWhitespace()
                    if t.isEmpty { return nil }
                    guard let v = Double(t), v.isFinite, v >= 0 else {
                        throw RecallError(file: file, line: r.line,
                                          "participant \(label): \"\(c)\" is not a time in seconds")
                    }
                    return v
                }
                let p = CohortTable.Participant(id: label, values: values)
                if inIncomplete { incomplete.append(p) } else { complete.append(p) }
            }
        }
        guard let strs else { throw RecallError(file: file, line: nil, "no 'string' row") }
        let ord = order ?? Array(1...n)
        let lens = lengths ?? strs.map(\.count)
        let cols = (0..<n).map { CohortTable.Column(order: ord[$0], string: strs[$0], length: lens[$0]) }
        return CohortTable(name: name, columns: cols, complete: complete, incomplete: incomplete)
    }
}

/// `%.2f` without `printf`, where binary rounding cannot disagree with it.
enum SecondsText {
    /// `s` rounded to whole hundredths as `%.2f` rounds it, or nil when that is not
    /// certain: |s| ≥ 10⁷ (or not finite), or `s · 100` within 10⁻⁶ of a half. Below
    /// 10⁷ the product is under 2³⁰, so its rounding error is at most 2⁻²³ (< 10⁻⁶):
    /// away from a half, the computed and the exact product round to the same integer.
    static func roundedHundredths(_ s: Double) -> Int64? {
        guard s.isFinite, abs(s) < 1e7 else { return nil }
        let k = s * 100
        let r = k.rounded()
        guard abs(abs(k - r) - 0.5) > 1e-6 else { return nil }
        return Int64(r)
    }

    /// `k` hundredths as `%.2f` prints it with trailing zeros and a bare point removed
    /// (`-0` as `0`).
    static func hundredths(_ k: Int64) -> String {
        if k == 0 { return "0" }
        let a = k.magnitude
        var t = (k < 0 ? "-" : "") + String(a / 100)
        let frac = a % 100
        if frac != 0 {
            t += frac % 10 == 0 ? "." + String(frac / 10) : (frac < 10 ? ".0" : ".") + String(frac)
        }
        return t
    }
}
