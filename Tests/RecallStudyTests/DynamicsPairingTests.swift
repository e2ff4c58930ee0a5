import Testing
@testable import RecallStudy

/// `Analyzer.dynamics` pairs each release with the earliest unreleased press of the same
/// label (first in, first out per label), whatever other keys are down meanwhile.
struct DynamicsPairingTests {
    @Test func releasesPairWithTheEarliestPressOfTheirLabel() {
        let keys: [(label: String, action: KeyAction, t: Int)] = [
            ("a", .down, 0), ("b", .down, 10), ("a", .up, 20), ("b", .up, 25),
            ("a", .down, 30), ("a", .down, 40), ("a", .up, 50), ("c", .tap, 60), ("a", .up, 70), ("z", .up, 80),
        ]
        let d = Analyzer.dynamics(keys)
        #expect(d.keys == ["a", "b", "a", "a", "c"])
        #expect(d.hold == [20, 15, 20, 30])
        #expect(d.downDown == [10, 20, 10, 20])
        #expect(d.upDown == [-10, 5, -10, -10])
        #expect(d.upUp == [5, 25, 20])
    }
}
