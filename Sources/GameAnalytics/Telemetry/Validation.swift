#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Validation shared by every reader

/// The ranges every reader enforces before any arithmetic (docs/game-telemetry.md,
/// "Ranges"). With these bounds no sum, difference or product in the measures can
/// overflow a 64-bit integer: a player has at most `maxSessionIndex` sessions of at most
/// `maxDurationMs` each (≤ 8.64 × 10¹² ms in all) and scores of at most `maxScore`
/// (≤ 10¹⁴ in all).
public enum TelemetryLimits {
    /// Largest monotonic clock reading accepted for `start`/`end` (2⁵³ − 1, exact in a double).
    public static let maxClock = 9_007_199_254_740_991
    /// Longest session: 24 hours.
    public static let maxDurationMs = 86_400_000
    /// Highest score.
    public static let maxScore = 1_000_000_000
    /// Highest session number.
    public static let maxSessionIndex = 100_000
}

/// Checks one session's invariants; returns the first problem as a sentence, or nil.
/// Shared by the JSON Lines and SQLite readers and by ingest, so all three accept exactly
/// the same data. Ranges are checked before any arithmetic, so hostile values never trap.
func sessionProblem(_ s: Session) -> String? {
    let L = TelemetryLimits.self
    if s.index < 1 || s.index > L.maxSessionIndex { return "session index \(s.index) must be 1…\(L.maxSessionIndex)" }
    if s.start < 0 || s.start > L.maxClock { return "session \(s.index) start \(s.start) is outside 0…\(L.maxClock)" }
    if s.end < 0 || s.end > L.maxClock { return "session \(s.index) end \(s.end) is outside 0…\(L.maxClock)" }
    if s.end < s.start { return "session \(s.index) ends (\(s.end)) before it starts (\(s.start))" }
    if s.end - s.start > L.maxDurationMs {
        return "session \(s.index) lasts \(s.end - s.start) ms, more than the 24 h (\(L.maxDurationMs) ms) accepted"
    }
    if s.score < 0 { return "session \(s.index) has a negative score" }
    if s.score > L.maxScore { return "session \(s.index) score \(s.score) is above \(L.maxScore)" }
    let d = s.duration
    var prev = 0
    for (i, o) in s.obstacles.enumerated() {
        if o.t < 0 { return "session \(s.index) obstacle \(i + 1): time \(o.t) is before the session start" }
        if o.t > d { return "session \(s.index) obstacle \(i + 1): time \(o.t) is after the session end (\(d))" }
        if o.t < prev { return "session \(s.index) obstacle \(i + 1): time \(o.t) goes backwards (previous \(prev))" }
        if o.interval != o.t - prev {
            return
                "session \(s.index) obstacle \(i + 1): interval \(o.interval) does not match the time since the "
                    + "previous obstacle (\(o.t - prev))"
        }
        if o.kind.isEmpty || o.kind.count > 32 {
            return "session \(s.index) obstacle \(i + 1): kind must be 1–32 characters"
        }
        prev = o.t
    }
    for (name, times) in [("tap", s.taps), ("jump", s.jumps), ("collision", s.collisions),
                          ("volume toggle", s.volume.map(\.t)), ("error log", s.errors.map(\.t))] {
        var p = 0
        for (i, t) in times.enumerated() {
            if t < 0 { return "session \(s.index) \(name) \(i + 1): time \(t) is before the session start" }
            if t > d { return "session \(s.index) \(name) \(i + 1): time \(t) is after the session end (\(d))" }
            if t < p { return "session \(s.index) \(name) \(i + 1): time \(t) goes backwards (previous \(p))" }
            p = t
        }
    }
    return nil
}

/// Checks a survey; returns the first problem, or nil.
func surveyProblem(_ s: Survey) -> String? {
    if let g = s.gender, !Survey.genders.contains(g) { return "gender must be female, male or other, got '\(g)'" }
    if let a = s.age, !(3...120).contains(a) { return "age \(a) is outside 3…120" }
    if s.complete {
        if s.diagnosed == nil { return "a complete survey needs 'diagnosed'" }
        if s.age == nil { return "a complete survey needs 'age'" }
        if s.gender == nil { return "a complete survey needs 'gender'" }
        if s.diagnosed == true && s.medicated == nil {
            return "a complete survey of a diagnosed player needs 'medicated'"
        }
    }
    if s.diagnosed == false && s.medicated == true { return "'medicated' is true but 'diagnosed' is false" }
    return nil
}
