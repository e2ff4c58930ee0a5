import Testing
@testable import RecallStudy

/// `Analyzer.dynamics` (strokes in scratch memory) against its plain twin below, the
/// version with a list of labelled strokes it replaced: random runs of presses, releases
/// and taps over few and many labels (repeats, releases with no press, keys never
/// released, several keys down at once), with times that go back as well as forward.
struct DynamicsTwinTests {
    static func dynamicsPlain(_ keys: [(label: String, action: KeyAction, t: Int)]) -> Dynamics {
        var strokes: [(label: String, down: Int, up: Int?)] = []
        var open: [(label: String, stroke: Int)] = []
        for k in keys {
            switch k.action {
            case .down:
                open.append((k.label, strokes.count))
                strokes.append((k.label, k.t, nil))
            case .tap:
                strokes.append((k.label, k.t, nil))
            case .up:
                if let i = open.firstIndex(where: { $0.label == k.label }) {
                    strokes[open[i].stroke].up = k.t
                    open.remove(at: i)
                }
            }
        }
        var hold: [Int] = [], dd: [Int] = [], ud: [Int] = [], uu: [Int] = []
        for (i, s) in strokes.enumerated() {
            if let u = s.up { hold.append(u - s.down) }
            if i + 1 < strokes.count {
                let n = strokes[i + 1]
                dd.append(n.down - s.down)
                if let u = s.up {
                    ud.append(n.down - u)
                    if let nu = n.up { uu.append(nu - u) }
                }
            }
        }
        return Dynamics(keys: strokes.map(\.label), hold: hold, downDown: dd, upDown: ud, upUp: uu,
                        medianHold: median(hold), medianDownDown: median(dd),
                        medianUpDown: median(ud), medianUpUp: median(uu))
    }

    @Test func dynamicsAsThePlainTwin() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        let labelSets: [[String]] = [
            ["a"], ["a", "b"], ["a", "b", "c", "space", "⌫"],
            ["é", "😀", "a long label name beyond sixteen bytes", "x"],
        ]
        var checked = 0
        for run in 0..<6_000 {
            let labels = labelSets[run % labelSets.count]
            let n = next(3) == 0 ? next(5) : next(120)
            var t = next(10_000)
            var keys: [(label: String, action: KeyAction, t: Int)] = []
            for _ in 0..<n {
                let action: KeyAction = [.down, .down, .up, .up, .tap][next(5)]
                t += next(7) == 0 ? -next(300) : next(400)
                keys.append((labels[next(labels.count)], action, t))
            }
            let fast = Analyzer.dynamics(keys), plain = Self.dynamicsPlain(keys)
            #expect(fast == plain, "\(keys)")
            if !fast.upUp.isEmpty { checked += 1 }
        }
        #expect(checked > 1_000)
        #expect(Analyzer.dynamics([]) == Self.dynamicsPlain([]))
    }
}
