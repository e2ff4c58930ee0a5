#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines

// MARK: - Errors

/// A problem with game input: which file, which line (1-based, if known) and what is wrong.
/// The section and the CLI convert it into the pipeline's `file:line: message` diagnostic.
public struct GameError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String?
    public var line: Int?
    /// The column of a JSON syntax error (docs/json-lines.md), else nil.
    public var column: Int?
    public var message: String
    /// The study database failed (unreachable, connection lost, …), not the data: an
    /// ingest stops instead of rejecting the upload (docs/store.md).
    public var storeFailure = false
    /// A conflict with a concurrent transaction: running the transaction again may succeed.
    public var retryable = false

    public init(file: String? = nil, line: Int? = nil, _ message: String, storeFailure: Bool = false,
                retryable: Bool = false) {
        self.file = file
        self.line = line
        self.message = message
        self.storeFailure = storeFailure
        self.retryable = retryable
    }

    /// A record that is not the JSON the reader accepts, at `file:line:column`.
    public init(_ e: JSONLinesError) {
        self.init(file: e.file, line: e.line, e.message)
        column = e.column
    }

    /// `file:line: message` (`file:line:column: message` for a syntax error).
    public var description: String {
        var s = ""
        if let file { s = file + (line.map { ":\($0)" } ?? "") + (column.map { ":\($0)" } ?? "") + ": " }
        return s + message
    }
}

// MARK: - Survey (seed 4.1)

/// The introductory survey. An incomplete survey is saved as it is (seed 4.1); its missing
/// answers are `nil`.
public struct Survey: Sendable, Hashable, Codable {
    public var complete: Bool
    public var diagnosed: Bool?
    /// Only meaningful when `diagnosed == true`.
    public var medicated: Bool?
    public var age: Int?
    /// `female`, `male` or `other` (anything else is rejected by the readers).
    public var gender: String?

    public init(complete: Bool, diagnosed: Bool?, medicated: Bool?, age: Int?, gender: String?) {
        self.complete = complete
        self.diagnosed = diagnosed
        self.medicated = medicated
        self.age = age
        self.gender = gender
    }

    public static let genders: Set<String> = ["female", "male", "other"]
}

// MARK: - Session events (seed 4.3, 4.4, 4.6)

/// One obstacle: when it appeared (ms since session start), the interval since the previous
/// obstacle (ms; for the first one, since the session start) and its kind.
public struct Obstacle: Sendable, Hashable, Codable {
    public var t: Int
    public var interval: Int
    public var kind: String
    public init(t: Int, interval: Int, kind: String) { self.t = t; self.interval = interval; self.kind = kind }
}

public struct VolumeToggle: Sendable, Hashable, Codable {
    public var t: Int
    public var on: Bool
    public init(t: Int, on: Bool) { self.t = t; self.on = on }
}

public struct ErrorLog: Sendable, Hashable, Codable {
    public var t: Int
    public var message: String
    public init(t: Int, message: String) { self.t = t; self.message = message }
}

/// One play session. Every event time is in ms since `start`, all from the device's
/// monotonic clock; `start`/`end` are raw monotonic readings.
public struct Session: Sendable, Hashable, Codable {
    public var index: Int
    public var start: Int
    public var end: Int
    public var score: Int
    public var obstacles: [Obstacle]
    public var taps: [Int]
    public var jumps: [Int]
    public var collisions: [Int]
    public var volume: [VolumeToggle]
    public var errors: [ErrorLog]

    public init(index: Int, start: Int, end: Int, score: Int, obstacles: [Obstacle] = [], taps: [Int] = [],
                jumps: [Int] = [], collisions: [Int] = [], volume: [VolumeToggle] = [], errors: [ErrorLog] = []) {
        self.index = index
        self.start = start
        self.end = end
        self.score = score
        self.obstacles = obstacles
        self.taps = taps
        self.jumps = jumps
        self.collisions = collisions
        self.volume = volume
        self.errors = errors
    }

    /// Session length in ms (0 when the clock readings are out of order or so far apart
    /// that the difference does not fit; validated sessions never are, see ``TelemetryLimits``).
    public var duration: Int {
        let (d, overflow) = end.subtractingReportingOverflow(start)
        return overflow || d < 0 ? 0 : d
    }
}

// MARK: - Player and cohort

/// One anonymous player: a random id, the survey (if any was saved) and the sessions in
/// order of `index`.
public struct Player: Sendable, Hashable, Codable {
    public var id: String
    public var survey: Survey?
    public var sessions: [Session]
    public init(id: String, survey: Survey?, sessions: [Session]) {
        self.id = id
        self.survey = survey
        self.sessions = sessions
    }
}

/// Every player, sorted by id (the order every reader returns, so JSON Lines and SQLite agree).
public struct Cohort: Sendable, Hashable, Codable {
    public var players: [Player]
    public init(players: [Player]) { self.players = players.sorted { $0.id < $1.id } }
}

/// Player ids: 1–64 characters from `[A-Za-z0-9_-]` (random, never personal data).
public func isValidPlayerID(_ s: String) -> Bool {
    !s.isEmpty && s.count <= 64 && s.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
    }
}
