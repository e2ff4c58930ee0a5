import Foundation

/// Fault injection for crash tests, active only in debug builds.
///
/// Every write that publish, vault sync and recall ingest make — each WebDAV `PUT`,
/// `MKCOL`, `MOVE`, `DELETE` and each local state, vault or log file written — first
/// calls ``hit(_:)``, which counts it (1, 2, 3, … per process). With `DOSSIER_FAULT_AT=N`
/// in the environment, the Nth write point does what `DOSSIER_FAULT_MODE` says:
///
/// - `kill` (default): ends the process at once with status 86, before the write — as
///   a `kill -9` or power loss would;
/// - `fail`: the write is not made and throws ``Injected`` (an I/O error the command
///   reports, exit status 1);
/// - `lost-answer`: (WebDAV only) the request is sent and the server acts on it, then
///   the answer is dropped and ``Injected`` is thrown, like a connection cut after the
///   request arrived.
///
/// Whatever the mode, the point first prints `fault injected: <mode> at write point N
/// (<label>)` on standard error (a caller may swallow a failed clean-up write, so the
/// exit status alone does not show that the fault was met).
///
/// In release builds (no `DEBUG` condition) ``hit(_:)`` does nothing: the variables are
/// never read.
public enum FaultPoint {
    /// The error a `fail` or `lost-answer` fault throws.
    public struct Injected: Error, CustomStringConvertible, Sendable {
        public let point: Int
        public let label: String
        public var description: String { "fault injected: write point \(point) (\(label)) failed" }
    }

    /// What a write point should do.
    public enum Action: Sendable { case proceed, failAfterWrite }

    #if DEBUG
    private static let lock = NSLock()
    nonisolated(unsafe) private static var count = 0
    private static let target: Int? = ProcessInfo.processInfo.environment["DOSSIER_FAULT_AT"].flatMap { Int($0) }
    private static let mode: String = ProcessInfo.processInfo.environment["DOSSIER_FAULT_MODE"] ?? "kill"
    #endif

    /// Counts one write point labelled `label`; kills the process or throws when it is
    /// the one `DOSSIER_FAULT_AT` names (debug builds only). Returns `.failAfterWrite`
    /// when the caller should make the write and then throw ``Injected``.
    @discardableResult
    public static func hit(_ label: String) throws -> Action {
        #if DEBUG
        guard let target else { return .proceed }
        lock.lock()
        count += 1
        let n = count
        lock.unlock()
        guard n == target else { return .proceed }
        let shown = ["fail", "lost-answer"].contains(mode) ? mode : "kill"
        FileHandle.standardError.write(Data("fault injected: \(shown) at write point \(n) (\(label))\n".utf8))
        switch shown {
        case "fail":
            throw Injected(point: n, label: label)
        case "lost-answer":
            return .failAfterWrite
        default:
            _exit(86)
        }
        #else
        return .proceed
        #endif
    }

    /// The error for a `lost-answer` fault at the current point.
    public static func lostAnswer(_ label: String) -> Injected {
        #if DEBUG
        lock.lock(); defer { lock.unlock() }
        return Injected(point: count, label: label)
        #else
        return Injected(point: 0, label: label)
        #endif
    }
}
