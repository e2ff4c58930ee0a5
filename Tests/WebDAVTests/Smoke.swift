import Testing
@testable import WebDAV

@Test func moduleLoads() { #expect(Bool(true)) }
