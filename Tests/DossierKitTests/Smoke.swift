import Testing
@testable import DossierKit

@Test func moduleLoads() { #expect(Bool(true)) }
