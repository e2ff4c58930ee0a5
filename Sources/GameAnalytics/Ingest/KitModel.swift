#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - The game kit's model (docs/game-kit.md, "The game model")

/// The Swift twin of `Site/game/play/model.js`: what a game played on the kit page must
/// record, as a function of its obstacle seed, its taps and its end alone. `game ingest`
/// recomputes every session that records a `seed` and refuses one that contradicts it.
public enum KitModel {
    static let kinds = ["crate", "spike", "trap"]
    static let jump = 600, safeFrom = 80, safeTo = 520, hitFrom = 640, hitTo = 760, lives = 3

    /// What the model gives for a seed, the taps and the end (ms since the start).
    public struct Outcome: Sendable, Hashable {
        /// The obstacles and jumps up to the recorded end (checked before the end is).
        public var obstacles: [Obstacle]
        public var jumps: [Int]
        public var collisions: [Int]
        /// The end the model allows: the third collision when it comes at or before the
        /// recorded end, else the recorded end (a stop).
        public var end: Int
        public var score: Int
    }

    /// mulberry32 (docs/game-kit.md): the obstacle schedule's generator.
    struct Mulberry32 {
        var a: UInt32
        mutating func next() -> Double {
            a = a &+ 0x6D2B_79F5
            var t = a
            t = (t ^ (t >> 15)) &* (t | 1)
            t ^= t &+ ((t ^ (t >> 7)) &* (t | 61))
            return Double(t ^ (t >> 14)) / 4_294_967_296
        }
    }

    /// The obstacles with aᵢ ≤ `end`.
    static func obstacles(seed: UInt32, through end: Int) -> [Obstacle] {
        var r = Mulberry32(a: seed), out: [Obstacle] = [], t = 0
        while true {
            let interval = 1000 + 250 * Int(r.next() * 8)
            let kind = kinds[Int(r.next() * 3)]
            t += interval
            if t > end { return out }
            out.append(Obstacle(t: t, interval: interval, kind: kind))
        }
    }

    /// The jumps the taps start: a tap starts one unless a jump started < 600 ms before.
    static func jumps(_ taps: [Int]) -> [Int] {
        var out: [Int] = []
        for t in taps where out.last.map({ t >= $0 + jump }) ?? true { out.append(t) }
        return out
    }

    /// When obstacle at `a` hits the sprite given the jumps (sorted), or nil when it is
    /// cleared. Only jumps from the first with j + 520 > aᵢ + 640 can push c, and once a
    /// jump starts after c − 80 no later one can: a few steps per obstacle, whatever the
    /// number of jumps (a hostile record cannot make ingest slow).
    static func hitTime(_ a: Int, jumps: [Int]) -> Int? {
        var c = a + hitFrom
        var lo = 0, hi = jumps.count
        while lo < hi { let mid = (lo + hi) / 2; if jumps[mid] + safeTo <= c { lo = mid + 1 } else { hi = mid } }
        for j in jumps[lo...] {
            if j + safeFrom > c || c > a + hitTo { break }
            if c < j + safeTo { c = j + safeTo }
        }
        return c <= a + hitTo ? c : nil
    }

    /// Replays a game: taps are the recorded ones (all ≤ `end`).
    public static func replay(seed: UInt32, taps: [Int], end: Int) -> Outcome {
        // Every obstacle that can matter before `end` (aᵢ + 640 ≤ end) has aᵢ ≤ end.
        let obs = obstacles(seed: seed, through: end)
        let js = jumps(taps)
        var hits: [(t: Int, i: Int)] = []
        for (i, o) in obs.enumerated() where hits.count < lives {
            if let c = hitTime(o.t, jumps: js), c <= end { hits.append((c, i)) }
        }
        let modelEnd = hits.count == lives ? hits[lives - 1].t : end
        let hit = Set(hits.map(\.i))
        let cleared = obs.enumerated().filter { $0.element.t + hitTo <= modelEnd && !hit.contains($0.offset) }.count
        return Outcome(obstacles: obs, jumps: js, collisions: hits.map(\.t), end: modelEnd,
                       score: 10 * cleared + modelEnd / 1000)
    }

    /// The first way a session contradicts the model of its seed, as a sentence naming the
    /// field and the first difference; nil when it agrees.
    public static func problem(_ s: Session, seed: Int) -> String? {
        let end = s.duration
        let m = replay(seed: UInt32(truncatingIfNeeded: seed), taps: s.taps, end: end)
        let head = "session \(s.index) contradicts the game model (seed \(seed)):"
        func show(_ o: Obstacle) -> String { "[\(o.t),\(o.interval),\"\(o.kind)\"]" }
        if let d = firstDifference(s.obstacles.map(show), m.obstacles.map(show)) {
            return "\(head) obstacles differ at obstacle \(d.at): recorded \(d.recorded), the model gives \(d.model)"
        }
        if let d = firstDifference(s.jumps.map(String.init), m.jumps.map(String.init)) {
            return "\(head) jumps differ at jump \(d.at): recorded \(d.recorded), the model gives \(d.model)"
        }
        if let d = firstDifference(s.collisions.map(String.init), m.collisions.map(String.init)) {
            return "\(head) collisions differ at collision \(d.at): recorded \(d.recorded), the model gives \(d.model)"
        }
        if m.end != end {
            return "\(head) end differs: recorded \(end) ms after the start, "
                + "the model ends at the third collision, \(m.end)"
        }
        if m.score != s.score { return "\(head) score differs: recorded \(s.score), the model gives \(m.score)" }
        return nil
    }

    /// The first position (1-based) where two lists differ, with each side's value there.
    static func firstDifference(_ recorded: [String], _ model: [String])
        -> (at: Int, recorded: String, model: String)? {
        for k in 0..<max(recorded.count, model.count) {
            let r = k < recorded.count ? recorded[k] : "none", m = k < model.count ? model[k] : "none"
            if r != m { return (k + 1, r, m) }
        }
        return nil
    }
}
