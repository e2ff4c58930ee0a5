import Testing
@testable import GameAnalytics

@Test func moduleLoads() { #expect(Bool(true)) }
