import Foundation
import Testing
@testable import DossierKit

/// `AtomicFile.writeUnsynced(_:name:inFolder:)` (a unit's blob, written by its path into
/// a folder made once) against its twin `AtomicFile.write(_:to:sync: false)`: the same
/// file (bytes and mode), no temp file left, an existing file replaced; a missing folder
/// is an error that leaves nothing.
@Suite struct AtomicFileUnsyncedTests {
    static let contents: [Data] = [
        Data(), Data([0x61]), Data("é".utf8), Data("e\u{301}".utf8), Data("a\r\nb".utf8), Data("=1,+2".utf8),
        Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
    ]

    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-unsynced-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func writtenAsTheURLWriteWritesThem() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (k, data) in Self.contents.enumerated() {
            for name in ["blob\(k)", "é\(k)", "e\u{301}x\(k)"] {
                try data.withUnsafeBytes { try AtomicFile.writeUnsynced($0, name: name, inFolder: dir.path) }
                try AtomicFile.write(data, to: dir.appendingPathComponent("twin-" + name), sync: false)
                let a = try Data(contentsOf: dir.appendingPathComponent(name))
                let b = try Data(contentsOf: dir.appendingPathComponent("twin-" + name))
                #expect(a == data && b == data, "\(name)")
                func mode(_ n: String) throws -> Int? {
                    let path = dir.appendingPathComponent(n).path
                    return try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                }
                let modeA = try mode(name), modeB = try mode("twin-" + name)
                #expect(modeA == modeB)
            }
        }
        // An existing file is replaced whole (a longer one by a shorter one).
        try Data("longer contents".utf8).withUnsafeBytes {
            try AtomicFile.writeUnsynced($0, name: "r", inFolder: dir.path)
        }
        try Data("x".utf8).withUnsafeBytes { try AtomicFile.writeUnsynced($0, name: "r", inFolder: dir.path) }
        #expect(try Data(contentsOf: dir.appendingPathComponent("r")) == Data("x".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "temp files left: \(left)")
    }

    @Test func aMissingFolderIsAnErrorThatLeavesNothing() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing").path
        #expect(throws: (any Error).self) {
            try Data("a".utf8).withUnsafeBytes { try AtomicFile.writeUnsynced($0, name: "b", inFolder: missing) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
