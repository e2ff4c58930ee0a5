import Foundation
import Testing
import TextBasics

/// `DurableReplace`, the one temp-file-then-rename write of the vault and the keystore.
@Suite struct DurableReplaceTests {
    func folder() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d.path
    }

    @Test func writesThenReplacesAndLeavesNoTemporaryFile() throws {
        let dir = try folder()
        let path = dir + "/v.bin"
        #expect(DurableReplace.write(Data("one".utf8), to: path, tempName: ".v.1.tmp") == nil)
        #expect(DurableReplace.write(Data("two".utf8), to: path, tempName: ".v.2.tmp") == nil)
        #expect(FileManager.default.contents(atPath: path) == Data("two".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["v.bin"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func anExistingTemporaryNameOrAMissingFolderIsACreateFailureAndTheFileIsKept() throws {
        let dir = try folder()
        let path = dir + "/v.bin"
        #expect(DurableReplace.write(Data("old".utf8), to: path, tempName: ".t") == nil)
        FileManager.default.createFile(atPath: dir + "/.taken", contents: Data("x".utf8))
        #expect(DurableReplace.write(Data("new".utf8), to: path, tempName: ".taken") == .create(EEXIST))
        #expect(FileManager.default.contents(atPath: path) == Data("old".utf8))
        #expect(DurableReplace.write(Data("new".utf8), to: dir + "/no/such/v.bin", tempName: ".t") == .create(ENOENT))
    }

    @Test func aRenameOntoAFolderFailsAndRemovesTheTemporaryFile() throws {
        let dir = try folder()
        try FileManager.default.createDirectory(atPath: dir + "/sub/inner", withIntermediateDirectories: true)
        #expect(DurableReplace.write(Data("x".utf8), to: dir + "/sub", tempName: ".t") != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["sub"])
    }
}
