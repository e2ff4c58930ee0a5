import Testing
@testable import SecureSMS

@Test func moduleLoads() { #expect(Bool(true)) }
