// FolderWalk against the FileManager calls it replaced (FileManager.enumerator with and
// without .skipsHiddenFiles, URLResourceValues.isRegularFile, fileExists(atPath:
// isDirectory:)) on a tree with hidden entries, links to files and folders, a dangling
// link, empty and nested folders and non-ASCII names.
import Foundation
import TextBasics
import XCTest

final class FolderWalkTests: XCTestCase {
    var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        let fm = FileManager.default
        for dir in ["a/b/c", "a/.hidden", ".top", "empty", "ünï", "z"] {
            try fm.createDirectory(at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        for file in ["a/one.md", "a/b/two.txt", "a/b/c/three", "a/.hidden/four", ".top/five", ".six", "ünï/sept.md",
                     "z/eight", "a/b/.nine"] {
            try Data(file.utf8).write(to: root.appendingPathComponent(file))
        }
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("link-file").path,
                                  withDestinationPath: "a/one.md")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("link-dir").path, withDestinationPath: "a/b")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("dangling").path, withDestinationPath: "nowhere")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    func relative(_ url: URL) -> String {
        String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
    }

    func testEntriesAreTheEnumeratorsSkippingHidden() throws {
        let e = try XCTUnwrap(FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey],
                                                             options: [.skipsHiddenFiles]))
        var all = Set<String>(), regular = Set<String>()
        for case let url as URL in e {
            all.insert(relative(url))
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                regular.insert(relative(url))
            }
        }
        let walked = try XCTUnwrap(FolderWalk.entries(under: root.path, skipHidden: true))
        XCTAssertEqual(Set(walked.map(\.path)), all)
        XCTAssertEqual(Set(try XCTUnwrap(FolderWalk.regularFiles(under: root.path, skipHidden: true))), regular)
        XCTAssertEqual(walked.count, all.count, "no entry twice")
    }

    func testEntriesAreTheEnumeratorsByPath() throws {
        let fm = FileManager.default
        let walker = try XCTUnwrap(fm.enumerator(atPath: root.path))
        var all = Set<String>(), notFolders = Set<String>()
        while let rel = walker.nextObject() as? String {
            all.insert(rel)
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: root.appendingPathComponent(rel).path, isDirectory: &isDir), !isDir.boolValue {
                notFolders.insert(rel)
            }
        }
        let walked = try XCTUnwrap(FolderWalk.entries(under: root.path, skipHidden: false))
        XCTAssertEqual(Set(walked.map(\.path)), all)
        let existing = walked.filter {
            $0.kind != .link || fm.fileExists(atPath: root.appendingPathComponent($0.path).path)
        }
        XCTAssertEqual(Set(existing.filter { !$0.isFolderFollowingLinks }.map(\.path)), notFolders)
    }

    func testSizesTimesAndOrder() throws {
        let walked = try XCTUnwrap(FolderWalk.entries(under: root.path, skipHidden: true))
        for w in walked where w.kind == .file {
            let attrs = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(w.path).path)
            XCTAssertEqual(w.size, (attrs[.size] as? NSNumber)?.int64Value)
            XCTAssertEqual(FolderWalk.size(atPath: root.appendingPathComponent(w.path).path), w.size)
            XCTAssertEqual(w.modified, (attrs[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0, accuracy: 1e-3)
        }
        XCTAssertEqual(walked.first?.path, "a")
        XCTAssertNil(FolderWalk.entries(under: root.appendingPathComponent("missing").path, skipHidden: true))
        XCTAssertNil(FolderWalk.size(atPath: root.appendingPathComponent("missing").path))
        let pruned = try XCTUnwrap(FolderWalk.entries(under: root.path, skipHidden: true, descend: { $0 != "a" }))
        XCTAssertFalse(pruned.contains { $0.path.hasPrefix("a/") })
    }
}
