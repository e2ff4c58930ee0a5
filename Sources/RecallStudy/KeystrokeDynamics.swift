extension Analyzer {
    /// Keystroke dynamics of a run of key events (CMU style). Downs are paired with the
    /// earliest unreleased down of the same label; taps have a down time only.
    ///
    /// A stroke is its key's index and its down and up times in scratch memory on the
    /// stack, and the keys still pressed a short list of stroke numbers (rarely more than
    /// two at once, so a list beats a dictionary of lists): no array of labelled tuples
    /// per entry, whose allocations and label retains were most of this function's 2 %
    /// of a study build (docs/perf-study.md). `DynamicsTwinTests` keeps the plain version.
    public static func dynamics(_ keys: [(label: String, action: KeyAction, t: Int)]) -> Dynamics {
        keys.withUnsafeBufferPointer { dynamics(of: LabelledKeys(keys: $0)) }
    }

    /// ``dynamics(_:)`` of any list of key events (the walk's keeps no labels:
    /// ``KeyPress``); specialized for each.
    static func dynamics<K: KeyEventList>(of keys: K) -> Dynamics {
        let n = keys.count
        var labels: [String] = []
        labels.reserveCapacity(n)
        var hold: [Int] = [], dd: [Int] = [], ud: [Int] = [], uu: [Int] = []
        // Per stroke: its down time, its up time and whether it has one; then the open list.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 4 * n + 1) { scratch in
            let down = scratch.baseAddress!, up = down + n, released = up + n, open = released + n
            var strokes = 0, opened = 0
            for k in 0..<n {
                let action = keys.action(k)
                if action == .up {
                    let label = keys.label(k)
                    var j = 0
                    while j < opened, labels[open[j]] != label { j += 1 }
                    guard j < opened else { continue }
                    up[open[j]] = keys.t(k)
                    released[open[j]] = 1
                    // The open list keeps its order.
                    for m in j..<(opened - 1) { open[m] = open[m + 1] }
                    opened -= 1
                    continue
                }
                if action == .down {
                    open[opened] = strokes
                    opened += 1
                }
                labels.append(keys.label(k))
                down[strokes] = keys.t(k)
                released[strokes] = 0
                strokes += 1
            }
            // Room for each list's exact count at most, and none for a list that stays
            // empty (taps have no up: a touch keyboard's entry has only down-downs).
            var ups = 0
            for i in 0..<strokes { ups += released[i] }
            if strokes > 1 { dd.reserveCapacity(strokes - 1) }
            if ups > 0 {
                hold.reserveCapacity(ups)
                ud.reserveCapacity(ups); uu.reserveCapacity(ups)
            }
            for i in 0..<strokes {
                let hasUp = released[i] != 0
                if hasUp { hold.append(up[i] - down[i]) }
                guard i + 1 < strokes else { continue }
                dd.append(down[i + 1] - down[i])
                if hasUp {
                    ud.append(down[i + 1] - up[i])
                    if released[i + 1] != 0 { uu.append(up[i + 1] - up[i]) }
                }
            }
        }
        return Dynamics(keys: labels, hold: hold, downDown: dd, upDown: ud, upUp: uu,
                        medianHold: median(hold), medianDownDown: median(dd),
                        medianUpDown: median(ud), medianUpUp: median(uu))
    }
}

/// Key events as ``Analyzer/dynamics(of:)`` reads them: each one's action, time and label.
protocol KeyEventList {
    var count: Int { get }
    func action(_ k: Int) -> KeyAction
    func t(_ k: Int) -> Int
    func label(_ k: Int) -> String
}

/// Labelled tuples (``Analyzer/dynamics(_:)``).
struct LabelledKeys: KeyEventList {
    let keys: UnsafeBufferPointer<(label: String, action: KeyAction, t: Int)>
    var count: Int { keys.count }
    func action(_ k: Int) -> KeyAction { keys[k].action }
    func t(_ k: Int) -> Int { keys[k].t }
    func label(_ k: Int) -> String { keys[k].label }
}
