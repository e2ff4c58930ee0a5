import Testing
@testable import Vault

@Test func moduleLoads() { #expect(Bool(true)) }
