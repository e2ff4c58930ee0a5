#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// The build log: `[i/n] step` lines, an optional progress bar on a terminal, and
/// warnings. Goes to standard error; `--quiet` keeps only warnings and errors,
/// `--verbose` adds detail. Never given a secret.
public final class BuildLog: @unchecked Sendable {
    public enum Level: Int, Sendable { case quiet = 0, normal = 1, verbose = 2 }

    public let level: Level
    private let isTTY: Bool
    private let lock = PlainLock()
    private var barShown = false
    private var lastBar = Date.distantPast
    /// Every line written (tests and the leak checks read it).
    public private(set) var lines: [String] = []
    private let sink: @Sendable (String) -> Void

    /// When the current progress count started (its label), for the ETA.
    private var progressStart: (label: String, at: Date)? = nil
    /// The last quarter reported as a plain line (not a terminal).
    private var lastQuarter = 0

    /// `terminal`: whether standard error is a terminal (default: asked of the system
    /// when writing to standard error; false for any other sink).
    public init(level: Level = .normal, sink: (@Sendable (String) -> Void)? = nil, terminal: Bool? = nil) {
        self.level = level
        self.isTTY = terminal ?? (sink == nil && isatty(2) == 1)
        self.sink = sink ?? { Stdio.writeError(Data($0.utf8)) }
    }

    private func emit(_ s: String) {
        lock.lock(); defer { lock.unlock() }
        if barShown { sink("\r\u{1B}[K"); barShown = false }
        lines.append(s)
        sink(s + "\n")
    }

    /// `[i/n] name`
    public func step(_ index: Int, of total: Int, _ name: String) {
        if level.rawValue >= Level.normal.rawValue { emit("[\(index)/\(total)] \(name)") }
    }

    public func info(_ s: String) { if level.rawValue >= Level.normal.rawValue { emit(s) } }
    /// A line shown at every level, `--quiet` included: why the command is waiting.
    public func notice(_ s: String) { emit(s) }
    public func detail(_ s: String) { if level == .verbose { emit("  " + s) } }
    public func warning(_ d: Diagnostic) { emit(d.severity == .warning ? d.description : "warning: " + d.description) }

    /// Progress inside a long step (docs/manifest.md, "Build log"). On a terminal: a bar
    /// with the count and, once a tenth is done, the time left (elapsed ÷ done × left),
    /// redrawn at most 10 times a second and erased when done. Not on a terminal: a plain
    /// line at each quarter of a step of at least ``plainProgressMinimum`` items
    /// (`    recall: 100/400 (25%)`). Nothing with `--quiet`.
    public func progress(_ done: Int, of total: Int, label: String) {
        guard level != .quiet, total > 0 else { return }
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        if progressStart?.label != label || done <= 1 { progressStart = (label, now); lastQuarter = 0 }
        guard isTTY else {
            let quarter = done * 4 / total
            if total >= Self.plainProgressMinimum, quarter > lastQuarter, quarter < 4 {
                lastQuarter = quarter
                let line = "    \(label): \(done)/\(total) (\(quarter * 25)%)"
                lines.append(line)
                sink(line + "\n")
            }
            return
        }
        if done < total && now.timeIntervalSince(lastBar) < 0.1 { return }
        lastBar = now
        let width = 28
        let filled = min(width, done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var eta = ""
        if let start = progressStart, done * 10 >= total, done < total {
            eta = "  about \(Self.duration(now.timeIntervalSince(start.at) / Double(done) * Double(total - done))) left"
        }
        sink("\r\u{1B}[K    \(label) ▕\(bar)▏ \(done)/\(total)\(eta)")
        barShown = done < total
        if done >= total { sink("\r\u{1B}[K") }
    }

    /// Steps with fewer items than this print no plain progress lines.
    public static let plainProgressMinimum = 100

    /// `8 s`, `1 min 05 s`: whole seconds, rounded up (a time left is never shown as 0 s).
    static func duration(_ seconds: Double) -> String {
        let s = max(1, Int(seconds.rounded(.up)))
        return s < 60 ? "\(s) s" : "\(s / 60) min " + (s % 60 < 10 ? "0" : "") + "\(s % 60) s"
    }
}
