import Testing
@testable import RecallStudy

@Test func moduleLoads() { #expect(Bool(true)) }
