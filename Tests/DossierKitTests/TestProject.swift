import Foundation
@testable import DossierKit

/// A throwaway project folder for pipeline tests.
struct TestProject {
    let root: URL

    init(files: [String: String]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-test-\(UUID().uuidString)")
        for (path, text) in files { try write(path, text) }
    }

    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: root.appendingPathComponent(path).path).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Every file under `folder` (relative path → bytes).
    func tree(_ folder: String = "_site") -> [String: Data] {
        let base = root.appendingPathComponent(folder)
        var out: [String: Data] = [:]
        guard let e = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return out }
        for case let url as URL in e {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue {
                out[String(url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1))] =
                    FileManager.default.contents(atPath: url.path)
            }
        }
        return out
    }

    @discardableResult
    func build(clean: Bool = false, check: Bool = false) async throws -> BuildReport {
        let log = BuildLog(level: .quiet, sink: { _ in })
        return try await Builder(project: root, options: BuildOptions(clean: clean, checkOnly: check), log: log).build()
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    static let basic: [String: String] = [
        "dossier.yml": "title: Test site\ndescription: A test.\nbase_url: https://example.org/t/\n",
        "content/index.md": "# Welcome\n\nSee [methods](methods.md) and [a](a.md).\n",
        "content/methods.md": "---\ntitle: Methods\nweight: 1\n---\n# Methods\n\n## One\n\n## Two\n",
        "content/a.md": "---\ntitle: Page A\n---\nText of A.\n",
        "content/b.md": "---\ntitle: Page B\n---\nText of B.\n",
    ]
}
