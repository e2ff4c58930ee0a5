import Testing
@testable import Render

@Test func moduleLoads() { #expect(Bool(true)) }
