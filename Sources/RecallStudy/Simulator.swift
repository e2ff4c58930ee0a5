#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import SplitMix64
import TextBasics

// MARK: - Seeded synthetic sessions (docs/recall-events.md, "Simulated logs")

/// The simulator's random numbers: SplitMix64 (the same seed gives the same numbers on
/// every platform) and the draws the model needs from it.
public struct SeededRandom: Sendable {
    private var bits: SplitMix64
    public init(seed: UInt64) { bits = SplitMix64(seed: seed) }

    public mutating func next() -> UInt64 { bits.next() }
    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    public mutating func chance(_ p: Double) -> Bool { uniform() < p }
    /// Uniform integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
    /// Standard normal (Box–Muller).
    public mutating func normal() -> Double {
        let u1 = max(uniform(), 1e-12), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
    /// Log-normal with the given median and log-space sigma.
    public mutating func logNormal(median: Double, sigma: Double) -> Double {
        median * exp(sigma * normal())
    }
}

/// The typing and memory model behind `dossier recall simulate`.
public struct Simulator: Sendable {
    public var strings: StringSet
    public var seed: UInt64
    /// Share of sessions abandoned mid-test.
    public var abandonRate: Double = 0.15
    /// Record each key as one `tap` event (what an iOS text-field delegate sees) instead
    /// of a `down`/`up` pair; logs are about half the size, and hold, up-down and up-up
    /// are then unknown.
    public var tapsOnly = false

    public init(strings: StringSet, seed: UInt64) {
        self.strings = strings
        self.seed = seed
    }

    /// The participant number of simulated participant `index` (1-based): `S001`…
    public static func participantID(_ index: Int) -> String { cFormat("S%03d", index) }

    /// One participant's log text (deterministic in `seed` and `index`).
    public func log(index: Int) -> String {
        var rng = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index) &* 0xD1B5_4A32_D192_ED03)
        _ = rng.next()
        var s = Session(rng: rng, strings: strings.strings)
        s.tapsOnly = tapsOnly
        s.run(abandonRate: abandonRate)
        return NativeLogWriter.log(participant: Self.participantID(index), strings: strings.strings,
                                   device: "simulated iPhone (Dossier typing model)", events: s.events)
    }
}

/// One simulated session.
private struct Session {
    var rng: SeededRandom
    let strings: [String]
    var events: [SessionEvent] = []
    var t = 0
    var tapsOnly = false
    /// Personal speed factor (1 = typical), error proneness and memory.
    let speed: Double
    let typo: Double
    let memory: Double

    init(rng: SeededRandom, strings: [String]) {
        var r = rng
        self.strings = strings
        speed = r.logNormal(median: 1, sigma: 0.25)
        typo = r.logNormal(median: 0.025, sigma: 0.4)
        memory = min(0.98, max(0.3, 0.75 + 0.12 * r.normal()))
        self.rng = r
    }

    mutating func add(_ k: EventKind) { events.append(SessionEvent(t: t, line: 0, kind: k)) }
    mutating func wait(_ median: Double, _ sigma: Double = 0.3) {
        t += max(1, Int(rng.logNormal(median: median * speed, sigma: sigma)))
    }

    /// Keyboard plane of a character (iOS: letters, 123, #+=); changing plane costs time.
    static func plane(_ c: Character) -> Int {
        if c.isLowercase { return 0 }
        if c.isUppercase { return 1 }
        if c.isNumber || "-/:;()$&@\".,?!'".contains(c) { return 2 }
        return 3
    }

    static let neighbours: [Character: String] = {
        let rows = ["1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm"]
        var m: [Character: String] = [:]
        for r in rows {
            let a = Array(r)
            for (i, c) in a.enumerated() {
                var n = ""
                if i > 0 { n.append(a[i - 1]) }
                if i + 1 < a.count { n.append(a[i + 1]) }
                m[c] = n
            }
        }
        return m
    }()

    mutating func wrong(for c: Character) -> Character {
        let lower = Character(c.lowercased())
        if let n = Self.neighbours[lower], !n.isEmpty {
            let w = Array(n)[rng.int(0...(n.count - 1))]
            return c.isUppercase ? Character(w.uppercased()) : w
        }
        return "x" == c ? "z" : "x"
    }

    /// Types `target` into `field` starting from `text`; returns the final text. Typos
    /// are usually noticed and fixed with backspace; `slip` forces one unnoticed typo.
    mutating func type(
        _ target: String, field: Int?, from start: String, slip: Bool = false, leadingSpace: Bool = false
    ) -> String {
        var planned: [(t: Int, label: String, action: KeyAction, edit: String?)] = []  // edit: nil = delete, "" = none
        var clock = t
        var prev: Character? = nil
        var chars = Array(target)
        if leadingSpace { chars.insert(" ", at: 0) }
        let slipAt = slip && !chars.isEmpty ? rng.int(0...(chars.count - 1)) : -1
        func press(_ label: String, _ edit: String?, gap: Double, rng: inout SeededRandom, speed: Double) {
            clock += max(30, Int(rng.logNormal(median: gap * speed, sigma: 0.35)))
            planned.append((clock, label, .down, edit))
            let hold = max(25, Int(rng.logNormal(median: 95, sigma: 0.25)))
            planned.append((clock + hold, label, .up, ""))
        }
        for (i, c) in chars.enumerated() {
            var gap = 270.0
            if let p = prev, Self.plane(p) != Self.plane(c) { gap += 480 }
            if prev == nil { gap = 500 }
            let label = c == " " ? "space" : String(c)
            if i == slipAt {
                let w = wrong(for: c)
                press(String(w), String(w), gap: gap, rng: &rng, speed: speed)
            } else if rng.chance(typo + 0.003 * Double(target.count)) {
                let w = wrong(for: c)
                press(String(w), String(w), gap: gap, rng: &rng, speed: speed)
                press("⌫", nil, gap: 450, rng: &rng, speed: speed)
                press(label, String(c), gap: 380, rng: &rng, speed: speed)
            } else {
                press(label, String(c), gap: gap, rng: &rng, speed: speed)
            }
            prev = c
        }
        // Events in time order (overlapping keys interleave), text replayed in that order.
        let order = planned.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        var text = start
        for k in order {
            if tapsOnly && k.action == .up { continue }
            var after: String? = nil
            if k.action != .up {
                if let e = k.edit { text += e } else if !text.isEmpty { text.removeLast() }
                after = text
            }
            let action = tapsOnly ? KeyAction.tap : k.action
            // The field was focused just before: the log leaves `field` to the focus event.
            events.append(
                SessionEvent(t: k.t, line: 0, kind: .key(label: k.label, action: action, text: after, field: nil)))
        }
        t = max(t, order.last?.t ?? t)
        return text
    }

    /// Deletes `text` with backspaces.
    mutating func erase(_ text: String, field: Int?) {
        var s = text
        while !s.isEmpty {
            wait(140, 0.3)
            s.removeLast()
            add(.key(label: "⌫", action: tapsOnly ? .tap : .down, text: s, field: nil))
            wait(80, 0.2)
            if !tapsOnly { add(.key(label: "⌫", action: .up, text: nil, field: nil)) }
        }
    }

    mutating func touch(_ x: Double, _ y: Double, _ target: String) {
        add(.touch(x: (x + 6 * rng.normal()).rounded(), y: (y + 4 * rng.normal()).rounded(), target: target))
    }

    mutating func button(_ b: ButtonKind, y: Double, ok: Bool? = nil) {
        wait(700)
        touch(160, y, b.rawValue)
        add(.button(b, verifyOK: ok))
    }

    mutating func run(abandonRate: Double) {
        let abandon = rng.chance(abandonRate)
        t = rng.int(150...400)
        for (i, target) in strings.enumerated() {
            let n = i + 1
            let len = Double(target.count)
            var views = 0
            var verified = false
            while !verified {
                // Memorize
                views += 1
                add(.page(.memorize, string: n))
                wait(2500 + 700 * len, 0.35)
                var practice = ""
                if rng.chance(0.5) {
                    touch(160, 200, "field")
                    add(.focus(field: 1))
                    practice = type(target, field: 1, from: "")
                }
                add(.fields([practice]))
                button(.next, y: 420)
                // Verify: recall succeeds more often with memory, views, shorter strings.
                add(.page(.verify, string: n))
                add(.focus(field: 1))
                var tries = 0
                while true {
                    tries += 1
                    let p = min(0.97, memory + 0.12 * Double(views - 1) - 0.03 * (len - 6))
                    let ok = rng.chance(p) || views >= 4
                    let text = type(target, field: 1, from: "", slip: !ok)
                    button(.verify, y: 260, ok: text == target)
                    if text == target {
                        verified = true
                        add(.fields([text]))
                        button(.startTest, y: 420)
                        break
                    }
                    if tries >= 2 || rng.chance(0.6) {
                        add(.fields([text]))
                        button(.memorize, y: 320)
                        break
                    }
                    erase(text, field: 1)
                }
            }
            // Entry: ten fields, touch the first, Next tabs on; sometimes re-key a field.
            add(.page(.entry, string: n))
            var texts = Array(repeating: "", count: 10)
            wait(900)
            touch(160, 80, "field 1")
            for f in 1...10 {
                if f > 1 { wait(250) }  // the keyboard's Next key moves the cursor (not a value change)
                add(.focus(field: f))
                let slip = rng.chance(typo * 0.6 + 0.004 * len)
                texts[f - 1] = type(target, field: f, from: "", slip: slip)
            }
            for f in 1...10 where texts[f - 1] != target && rng.chance(0.5) || rng.chance(0.01) {
                wait(900)
                touch(160, 80 + 34 * Double(f - 1), "field \(f)")
                add(.focus(field: f))
                erase(texts[f - 1], field: f)
                texts[f - 1] = type(target, field: f, from: "")
            }
            add(.fields(texts))
            button(.done, y: 440)
            if abandon && rng.chance(0.25) { return closeApp() }
        }
        // Recall: strings come back with probability falling with length.
        add(.page(.recall, string: nil))
        wait(2500)
        var field = 0
        var texts = Array(repeating: "", count: 10)
        for target in strings.shuffledDeterministic(&rng) {
            let p = min(0.95, memory - 0.04 * (Double(target.count) - 6))
            guard rng.chance(p) else { continue }
            field += 1
            wait(1800, 0.5)
            touch(160, 80 + 34 * Double(field - 1), "field \(field)")
            add(.focus(field: field))
            let leading = rng.chance(0.03)
            texts[field - 1] = type(target, field: field, from: "", slip: rng.chance(0.12), leadingSpace: leading)
        }
        add(.fields(texts))
        button(.done, y: 440)
        if abandon { return closeApp() }
        add(.page(.thankyou, string: nil))
    }

    /// Abandons the session: cuts the log at a random event and maybe records the close.
    mutating func closeApp() {
        let keep = max(3, Int(Double(events.count) * (0.3 + 0.6 * rng.uniform())))
        events = Array(events.prefix(keep))
        if rng.chance(0.5), let last = events.last {
            events.append(SessionEvent(t: last.t + 1500, line: 0, kind: .close))
        }
    }
}

extension Array {
    /// Fisher–Yates with the seeded generator.
    func shuffledDeterministic(_ rng: inout SeededRandom) -> [Element] {
        var a = self
        if a.count < 2 { return a }
        for i in stride(from: a.count - 1, to: 0, by: -1) {
            let j = Int(rng.next() % UInt64(i + 1))
            a.swapAt(i, j)
        }
        return a
    }
}
