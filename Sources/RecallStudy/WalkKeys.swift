// The walk's key list: each key event of the open segment as a pointer to the event and
// its action and time (docs/perf-study.md, "Issue #45, the participant analysis and its
// JSON"). The list held each key's label as a `String` in a tuple: every key was a
// retain, and every segment's end destroyed its list element by element through the
// tuple's generic value witness and freed it (≈ 2,000 instructions a segment).

/// One key event of the open segment. `event` points into the log's events, which
/// ``Analyzer/analyze(_:strings:)`` keeps in place for the whole walk; the label is read
/// from there when it is needed.
struct KeyPress {
    var event: UnsafePointer<SessionEvent>
    var action: KeyAction
    var t: Int

    /// The key's label as logged ("" for an event that is not a key: never the case).
    var label: String {
        if case .key(let label, _, _, _) = event.pointee.kind { return label }
        return ""
    }
}

/// The walk's key list as ``Analyzer/dynamics(of:)`` reads it.
struct WalkKeys: KeyEventList {
    let keys: UnsafeBufferPointer<KeyPress>
    var count: Int { keys.count }
    func action(_ k: Int) -> KeyAction { keys[k].action }
    func t(_ k: Int) -> Int { keys[k].t }
    func label(_ k: Int) -> String { keys[k].label }
}

extension Walk {
    /// `Analyzer.lengthChange(fieldText[i], text)` with the before text's count read from
    /// ``fieldCounts`` when it is there; also `text`'s count for ``fieldCounts`` (−1 when
    /// not ASCII without CR).
    func lengthChange(field i: Int, to text: String) -> (change: Int, count: Int) {
        let after = Analyzer.asciiCount(text) ?? -1
        if after >= 0 {
            var before = fieldCounts[i]
            if before == -2 { before = Analyzer.asciiCount(fieldText[i]) ?? -1 }
            if before >= 0 { return (after - before, after) }
        }
        return (text.count - fieldText[i].count, after)
    }

    /// The bit of field `f` in ``keyedFields`` (fields are 1–10; none outside 0–63).
    static func bit(_ f: Int) -> UInt64 { f >= 0 && f < 64 ? 1 << UInt64(f) : 0 }

    /// The first and last press times (downs and taps: ups only matter for the
    /// dynamics) and the number of presses; nil when the keys have none.
    static func presses(_ keys: [KeyPress]) -> (start: Int, end: Int, count: Int)? {
        var start = 0, end = 0, count = 0
        for k in keys where k.action != .up {
            if count == 0 { start = k.t }
            end = k.t
            count += 1
        }
        return count == 0 ? nil : (start, end, count)
    }

    /// The label of the open segment's last key press when it is a character key's
    /// `down` (one character or `space`) not yet released: a `tap` now is that key's own
    /// change (docs/recall-events.md, "A change while a key is held").
    func heldKey() -> String? {
        guard let i = keys.lastIndex(where: { $0.action != .up }), keys[i].action == .down else { return nil }
        let label = keys[i].label
        guard label == "space" || label.count == 1 else { return nil }
        return keys[(i + 1)...].contains { $0.action == .up && $0.label == label } ? nil : label
    }
}

extension Analyzer {
    /// ``dynamics(_:)`` of the walk's key list.
    static func dynamics(of keys: [KeyPress]) -> Dynamics {
        keys.withUnsafeBufferPointer { dynamics(of: WalkKeys(keys: $0)) }
    }
}
