import Foundation
import Testing
@testable import DossierKit

/// `TreeRemoval.removeTree` (the previous site removed on every core after a swap)
/// against its twin `FileManager.removeItem`: both remove the whole tree, neither follows
/// a symbolic link out of it, and the folders handed out are those of the first level deep
/// enough to keep the cores busy.
@Suite struct TreeRemovalTests {
    /// A temp folder holding `tree` (built by `make`) and `outside` (a folder with a file,
    /// the target of the tree's links).
    static func fixture(folders: Int, depth: Int) throws -> (root: URL, tree: String, outside: String) {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("tree-removal-\(UUID().uuidString)")
        let tree = root.appendingPathComponent("tree").path
        let outside = root.appendingPathComponent("outside").path
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/kept.txt"))
        // tree/top.txt, tree/a/b/…/item-K/{index.html, é.csv}, links at every level.
        var parent = tree
        for level in 0..<depth {
            try fm.createDirectory(atPath: parent, withIntermediateDirectories: true)
            try Data("level \(level)".utf8).write(to: URL(fileURLWithPath: parent + "/top.txt"))
            try fm.createSymbolicLink(atPath: parent + "/to-outside", withDestinationPath: outside)
            try fm.createSymbolicLink(atPath: parent + "/to-file", withDestinationPath: outside + "/kept.txt")
            parent += "/level\(level)"
        }
        for k in 0..<folders {
            let item = parent + "/item-\(k)"
            try fm.createDirectory(atPath: item + "/inner", withIntermediateDirectories: true)
            try Data(repeating: UInt8(k % 251), count: 1000 + k).write(to: URL(fileURLWithPath: item + "/index.html"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: item + "/inner/é.csv"))
        }
        return (root, tree, outside)
    }

    @Test(arguments: [(0, 1), (1, 1), (3, 2), (70, 1), (70, 3), (200, 5)])
    func removesWhatTheTwinRemovesAndNothingOutside(shape: (folders: Int, depth: Int)) throws {
        for cores in [1, 2, 4] {
            let fast = try Self.fixture(folders: shape.folders, depth: shape.depth)
            let twin = try Self.fixture(folders: shape.folders, depth: shape.depth)
            defer {
                try? FileManager.default.removeItem(at: fast.root)
                try? FileManager.default.removeItem(at: twin.root)
            }
            TreeRemoval.removeTree(fast.tree, cores: cores)
            try? FileManager.default.removeItem(atPath: twin.tree)
            for f in [fast, twin] {
                #expect(!FileManager.default.fileExists(atPath: f.tree), "\(shape) \(cores)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: f.outside + "/kept.txt")) == Data("keep".utf8))
                #expect(try FileManager.default.contentsOfDirectory(atPath: f.root.path).sorted() == ["outside"])
            }
        }
    }

    @Test func theFoldersHandedOutAreTheFirstLevelWithEnoughOfThem() throws {
        // 70 item folders two levels down: level0/level1/item-K.
        let f = try Self.fixture(folders: 70, depth: 2)
        defer { try? FileManager.default.removeItem(at: f.root) }
        let handed = TreeRemoval.foldersToHandOut(f.tree).sorted()
        #expect(handed == (0..<70).map { f.tree + "/level0/level1/item-\($0)" }.sorted())
        // Fewer than enough: the deepest level within three that has any (here the items' `inner`).
        let few = try Self.fixture(folders: 3, depth: 1)
        defer { try? FileManager.default.removeItem(at: few.root) }
        #expect(TreeRemoval.foldersToHandOut(few.tree).sorted()
                == (0..<3).map { few.tree + "/level0/item-\($0)/inner" }.sorted())
        // Links to folders are never handed out, and a file or a missing path has none.
        #expect(!TreeRemoval.foldersToHandOut(f.tree).contains { $0.hasSuffix("to-outside") })
        #expect(TreeRemoval.foldersToHandOut(f.outside + "/kept.txt").isEmpty)
        #expect(TreeRemoval.foldersToHandOut(f.root.path + "/missing").isEmpty)
    }

    @Test func aLinkGivenAsTheTreeIsRemovedNotFollowed() throws {
        let f = try Self.fixture(folders: 2, depth: 1)
        defer { try? FileManager.default.removeItem(at: f.root) }
        let link = f.root.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: f.tree)
        TreeRemoval.removeTree(link, cores: 2)
        #expect(!FileManager.default.fileExists(atPath: link))
        #expect(FileManager.default.fileExists(atPath: f.tree + "/level0/item-1/index.html"))
    }
}
