import Foundation

/// The build log: `[i/n] step` lines, an optional progress bar on a terminal, and
/// warnings. Goes to standard error; `--quiet` keeps only warnings and errors,
/// `--verbose` adds detail. Never given a secret.
public final class BuildLog: @unchecked Sendable {
    public enum Level: Int, Sendable { case quiet = 0, normal = 1, verbose = 2 }

    public let level: Level
    private let isTTY: Bool
    private let lock = NSLock()
    private var barShown = false
    private var lastBar = Date.distantPast
    /// Every line written (tests and the leak checks read it).
    public private(set) var lines: [String] = []
    private let sink: @Sendable (String) -> Void

    public init(level: Level = .normal, sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.isTTY = sink == nil && isatty(2) == 1
        self.sink = sink ?? { FileHandle.standardError.write(Data($0.utf8)) }
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
    public func detail(_ s: String) { if level == .verbose { emit("  " + s) } }
    public func warning(_ d: Diagnostic) { emit(d.severity == .warning ? d.description : "warning: " + d.description) }

    /// A progress bar for long steps, redrawn at most 10 times a second, terminal only.
    public func progress(_ done: Int, of total: Int, label: String) {
        guard isTTY, level != .quiet, total > 0 else { return }
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        if done < total && now.timeIntervalSince(lastBar) < 0.1 { return }
        lastBar = now
        let width = 28
        let filled = min(width, done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        sink("\r\u{1B}[K    \(label) ▕\(bar)▏ \(done)/\(total)")
        barShown = done < total
        if done >= total { sink("\r\u{1B}[K") }
    }
}
