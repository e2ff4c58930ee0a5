import Testing
@testable import Experiences

@Test func moduleLoads() { #expect(Bool(true)) }
