import Testing
@testable import RecallStudy

/// The analysis's fast paths of issue #45 (docs/perf-study.md, "Issue #45, the
/// participant analysis and its JSON") against their plain twins: the short-list median
/// by a sorting network against a full sort, the walk's cached text counts against
/// counting both texts, and the dynamics of the walk's key list (labels read from the events) against
/// `DynamicsTwinTests.dynamicsPlain` of labelled tuples.
struct WalkTwinTests {
    /// The walk's count of a key's text change, the text before counted once when its key
    /// set it (``Walk/fieldCounts``), against ``Analyzer/lengthChange(_:_:)`` of the two
    /// texts: every pair of edge texts, with the before text's count cached, not counted
    /// yet (−2), or cached as not ASCII (−1).
    @Test func cachedLengthChangeAsCountingBoth() throws {
        let texts = ["", "a", "ab", "abc", "\r", "\n", "\r\n", "a\r\nb", "é", "e\u{301}", "café", "cafe\u{301}",
                     "👍🏽", "ab👍🏽é", "€", "\u{7F}", "0123456789abcdef0123", String(repeating: "x", count: 100_000),
                     String(repeating: "x", count: 99_999) + "é", String(repeating: "\r\n", count: 50_000)]
        var walk = Walk(log: try parseLog(header + "\n"), strings: try studyStrings())
        walk.fieldText = [""]
        walk.fieldCounts = [0]
        for before in texts {
            for after in texts {
                let cached = Analyzer.asciiCount(before) ?? -1
                for stored in [cached, -2] {
                    walk.fieldText[0] = before
                    walk.fieldCounts[0] = stored
                    let (change, count) = walk.lengthChange(field: 0, to: after)
                    #expect(change == Analyzer.lengthChange(before, after),
                            "\(before.prefix(9).debugDescription) → \(after.prefix(9).debugDescription)")
                    #expect(count == (Analyzer.asciiCount(after) ?? -1))
                }
            }
        }
    }

    @Test func networkMedianAsSorting() {
        var rng = MedianTestRandom(seed: 4_545)
        var inputs: [[Int]] = [[], [0], [-1], [Int.max], [Int.min], [Int.min, Int.max], [Int.max, Int.max],
                               [Int.max, Int.max - 1, Int.min], [1, 1, 1, 1], [3, 1, 2], [2, 1],
                               Array(repeating: Int.max, count: 16), Array(repeating: Int.min, count: 16),
                               Array(1...16), Array((1...16).reversed()), Array(repeating: 5, count: 17)]
        for n in 1...17 {
            for _ in 0..<400 {
                inputs.append((0..<n).map { _ in rng.int(3) })                   // ties
                inputs.append((0..<n).map { _ in rng.int(2_000) - 700 })         // negatives
                inputs.append((0..<n).map { _ in [Int.min, Int.max, 0, -1, 1][rng.int(5)] })   // extremes
            }
        }
        for v in inputs {
            let plain = v.count <= 16 ? medianBySorting(v) : nil
            #expect(v.withUnsafeBufferPointer { networkMedian($0) } == plain, "\(v)")
            #expect(median(v) == medianBySorting(v), "\(v)")
        }
    }

    /// The windowed count against a full sort: pools of keystroke-like intervals with a
    /// few long pauses (the shape it is for), all equal, two clusters far apart (the
    /// middle values outside the window: nil), the middle value's neighbour just below
    /// the window, negatives, `Int.min`/`Int.max` (a window that would overflow: nil),
    /// sizes 17–2,000. Where it answers, it is the sorted median; the median through
    /// `median` is always.
    @Test func windowedCountingMedianAsSorting() {
        var rng = MedianTestRandom(seed: 4_549)
        var inputs: [[Int]] = [Array(repeating: 7, count: 17), Array(repeating: Int.max, count: 20),
                               Array(repeating: Int.min, count: 20), Array(0..<17), Array((0..<18).reversed())]
        for n in Array(17...80) + [99, 100, 101, 500, 501, 2_000] {
            for _ in 0..<30 {
                // intervals of 80–480 ms, one in 20 a pause of up to 30 s
                inputs.append((0..<n).map { _ in 80 + rng.int(400) + (rng.int(20) == 0 ? rng.int(30_000) : 0) })
                inputs.append((0..<n).map { _ in rng.int(3) - 1 + (rng.int(8) == 0 ? 1_000_000 : 0) })
                inputs.append((0..<n).map { $0 < n / 2 ? rng.int(50) : 1_000_000 + rng.int(50) })
                inputs.append((0..<n).map { _ in [Int.min, Int.max, 0, -1, 1][rng.int(5)] })
                inputs.append((0..<n).map { _ in rng.int(2) == 0 ? -rng.int(4 * n) : rng.int(9 * n) })
            }
        }
        var answered = 0
        for v in inputs {
            let sorted = medianBySorting(v)
            if let m = v.withUnsafeBufferPointer({ windowedCountingMedian($0) }) {
                #expect(m == sorted, "\(v.prefix(20)) (\(v.count))")
                answered += 1
            }
            #expect(median(v) == sorted, "\(v.prefix(20)) (\(v.count))")
        }
        #expect(answered > inputs.count / 3)
        #expect([Int]().withUnsafeBufferPointer { windowedCountingMedian($0) } == nil)
        #expect(Array(0..<16).withUnsafeBufferPointer { windowedCountingMedian($0) } == nil)
    }

    /// The 0–1 principle: a comparator network sorts every input when it sorts every list
    /// of zeros and ones; all 2¹⁶ (and 2⁸) of them.
    @Test func networksSortEveryListOfZerosAndOnes() {
        for (size, pairs) in [(8, SortingNetwork.pairs8), (16, SortingNetwork.pairs16)] {
            #expect(pairs.count == (size == 8 ? 19 : 63))
            for bits in 0..<(1 << size) {
                var v = (0..<size).map { (bits >> $0) & 1 }
                for (i, j) in pairs {
                    let a = v[Int(i)], b = v[Int(j)]
                    v[Int(i)] = min(a, b); v[Int(j)] = max(a, b)
                }
                if v != v.sorted() { Issue.record("\(size) slots: \(bits) not sorted"); break }
            }
        }
    }

    /// The networks written out (SortingNetworks.swift) as their pairs applied in order,
    /// on 20,000 random lists each (ties, extremes) and every list of zeros and ones.
    @Test func writtenOutNetworksAsTheirPairs() {
        var rng = MedianTestRandom(seed: 4_547)
        for (size, pairs) in [(8, SortingNetwork.pairs8), (16, SortingNetwork.pairs16)] {
            var lists: [[Int]] = (0..<(1 << size)).map { bits in (0..<size).map { (bits >> $0) & 1 } }
            for _ in 0..<20_000 {
                lists.append((0..<size).map { _ in
                    [Int.min, Int.max, 0, -1, rng.int(50), rng.int(1 << 40)][rng.int(6)]
                })
            }
            for list in lists {
                var plain = list
                for (i, j) in pairs {
                    let a = plain[Int(i)], b = plain[Int(j)]
                    plain[Int(i)] = min(a, b); plain[Int(j)] = max(a, b)
                }
                var slots = InlineArray<16, Int>(repeating: -7)
                for i in 0..<size { slots[i] = list[i] }
                if size == 8 { sortByNetwork8(&slots) } else { sortByNetwork16(&slots) }
                let fast = (0..<size).map { slots[$0] }
                if fast != plain { Issue.record("\(size): \(list)"); break }
                if size == 8, (8..<16).contains(where: { slots[$0] != -7 }) { Issue.record("slots past 8 written") }
            }
        }
    }

    /// The walk's dynamics (``KeyPress``: the label read from the event) as the plain twin
    /// of labelled tuples, over random runs of presses, releases and taps with labels
    /// `é` as one scalar and as e + U+0301 (equal `String`s, so a release of one pairs
    /// with a press of the other in both), long labels, CR LF, space and ⌫.
    @Test func walkDynamicsAsThePlainTwin() {
        var rng = MedianTestRandom(seed: 45_45)
        let labels = ["a", "é", "e\u{301}", "space", "⌫", "\r\n", "a long label name beyond sixteen bytes", "😀"]
        for run in 0..<3_000 {
            let n = run % 50 == 0 ? rng.int(3) : rng.int(60)
            var t = rng.int(5_000)
            var events: [SessionEvent] = []
            for i in 0..<n {
                let action: KeyAction = [.down, .down, .up, .up, .tap][rng.int(5)]
                t += rng.int(9) == 0 ? -rng.int(300) : rng.int(400)
                let label = labels[rng.int(run % 3 == 0 ? 2 : labels.count)]
                let kind = EventKind.key(label: label, action: action, text: nil, field: 1)
                events.append(SessionEvent(t: t, line: i + 1, kind: kind))
            }
            let tuples = events.map { e -> (label: String, action: KeyAction, t: Int) in
                guard case .key(let l, let a, _, _) = e.kind else { fatalError() }
                return (l, a, e.t)
            }
            events.withUnsafeBufferPointer { b in
                let presses = b.indices.map {
                    KeyPress(event: b.baseAddress! + $0, action: tuples[$0].action, t: tuples[$0].t)
                }
                let fast = Analyzer.dynamics(of: presses)
                #expect(fast == DynamicsTwinTests.dynamicsPlain(tuples), "\(tuples)")
                #expect(fast == Analyzer.dynamics(tuples))
                let pressed = tuples.filter { $0.action != .up }
                let span = Walk.presses(presses)
                #expect(span?.start == pressed.first?.t && span?.end == pressed.last?.t)
                #expect((span?.count ?? 0) == pressed.count)
            }
        }
    }

    @Test func fieldBitsAsASet() {
        var bits: UInt64 = 0
        var set: Set<Int> = []
        // every field 0–63 twice (the second time already keyed), and some outside
        for f in Array(0..<64) + Array((0..<64).reversed()) + [64, -1, 100, Int.max, Int.min] {
            let inRange = f >= 0 && f < 64
            #expect((bits & Walk.bit(f) != 0) == (set.contains(f) && inRange), "field \(f)")
            #expect(Walk.bit(f) == (inRange ? 1 << UInt64(f) : 0), "field \(f)")
            bits |= Walk.bit(f); set.insert(f)
        }
        #expect(bits == .max)
    }
}

/// The compare-exchanges of Batcher's odd–even merge sort of 8 and 16 slots, in order
/// (the twin of the networks written out in Sources/RecallStudy/SortingNetworks.swift).
enum SortingNetwork {
    static let pairs8 = oddEvenMerge(8)
    static let pairs16 = oddEvenMerge(16)

    /// The network for `n` slots (a power of two), as Knuth and Batcher give it.
    static func oddEvenMerge(_ n: Int) -> [(UInt8, UInt8)] {
        var pairs: [(UInt8, UInt8)] = []
        var p = 1
        while p < n {
            var k = p
            while k >= 1 {
                var j = k % p
                while j <= n - 1 - k {
                    for i in 0..<min(k, n - j - k) where (i + j) / (p * 2) == (i + j + k) / (p * 2) {
                        pairs.append((UInt8(i + j), UInt8(i + j + k)))
                    }
                    j += 2 * k
                }
                k /= 2
            }
            p *= 2
        }
        return pairs
    }
}
