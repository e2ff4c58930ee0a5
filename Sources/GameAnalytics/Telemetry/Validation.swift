import Foundation

// MARK: - Validation shared by every reader

/// Checks one session's invariants; returns the first problem as a sentence, or nil.
/// Shared by the JSON Lines and SQLite readers and by ingest, so all three accept exactly
/// the same data.
func sessionProblem(_ s: Session) -> String? {
    if s.index < 1 { return "session index \(s.index) must be 1 or more" }
    if s.end < s.start { return "session \(s.index) ends (\(s.end)) before it starts (\(s.start))" }
    if s.score < 0 { return "session \(s.index) has a negative score" }
    let d = s.duration
    var prev = 0
    for (i, o) in s.obstacles.enumerated() {
        if o.t < prev { return "session \(s.index) obstacle \(i + 1): time \(o.t) goes backwards (previous \(prev))" }
        if o.t > d { return "session \(s.index) obstacle \(i + 1): time \(o.t) is after the session end (\(d))" }
        if o.interval != o.t - prev {
            return "session \(s.index) obstacle \(i + 1): interval \(o.interval) does not match the time since the previous obstacle (\(o.t - prev))"
        }
        if o.kind.isEmpty || o.kind.count > 32 { return "session \(s.index) obstacle \(i + 1): kind must be 1–32 characters" }
        prev = o.t
    }
    for (name, times) in [("tap", s.taps), ("jump", s.jumps), ("collision", s.collisions),
                          ("volume toggle", s.volume.map(\.t)), ("error log", s.errors.map(\.t))] {
        var p = 0
        for (i, t) in times.enumerated() {
            if t < p { return "session \(s.index) \(name) \(i + 1): time \(t) goes backwards (previous \(p))" }
            if t > d { return "session \(s.index) \(name) \(i + 1): time \(t) is after the session end (\(d))" }
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
        if s.diagnosed == true && s.medicated == nil { return "a complete survey of a diagnosed player needs 'medicated'" }
    }
    if s.diagnosed == false && s.medicated == true { return "'medicated' is true but 'diagnosed' is false" }
    return nil
}
