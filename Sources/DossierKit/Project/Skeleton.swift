#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// `dossier new`: a small project that builds as it is.
public enum Skeleton {
    /// `with`: the sections written uncommented (``Kind``); their data files come from
    /// `files` (path → bytes), which the caller makes with the domain modules.
    public static func create(at folder: URL, title: String?, with: [Kind] = [], files extra: [String: Data] = [:],
                              folders: [String] = []) throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder.appendingPathComponent("dossier.yml").path) {
            throw DossierError(
                file: SitePaths.display(folder.appendingPathComponent("dossier.yml")), "a project already exists here")
        }
        let name = title ?? folder.lastPathComponent
        let quoted = "\"" + name.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\""
        let files: [String: String] = [
            "dossier.yml": manifest(title: quoted, with: with),
            "content/index.md": """
            ---
            title: \(quoted)
            ---
            # \(name)

            Welcome. Edit `content/index.md` to change this introduction, and add pages
            as Markdown files under `content/`.

            """,
            "content/methods.md": """
            ---
            title: Methods
            summary: How the data was collected.
            weight: 10
            ---
            # Methods

            Describe the protocol here. Markdown tables, task lists and links work:

            | Step | What |
            |------|------|
            | 1 | Consent |
            | 2 | Session |

            - [x] Write the protocol
            - [ ] Run the pilot

            """,
            "templates/README.md": """
            Put a template here with the same name as a built-in one (for example
            `layout.mustache` or `page.mustache`) to override it for this project.

            """,
        ]
        var all = files.mapValues { Data($0.utf8) }
        all.merge(extra) { a, _ in a }
        let toWrite = try filesToWrite(all, in: folder)
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        for path in folders {
            try fm.createDirectory(at: folder.appendingPathComponent(path), withIntermediateDirectories: true)
        }
        for (path, data) in toWrite {
            let url = folder.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(data, to: url, sync: false)
        }
    }

    /// The skeleton's files still to write, `dossier.yml` last (so a run stopped part way,
    /// by a full disk say, is finished by running it again). A file already there with
    /// the same bytes is left as it is; one with other bytes — someone's own work — stops
    /// the command before anything is written: `new` never overwrites a file.
    static func filesToWrite(_ all: [String: Data], in folder: URL) throws -> [(String, Data)] {
        var clashes: [Diagnostic] = []
        var out: [(String, Data)] = []
        let order = { (path: String) in (path == "dossier.yml" ? 1 : 0, path) }
        for (path, data) in all.sorted(by: { order($0.key) < order($1.key) }) {
            let url = folder.appendingPathComponent(path)
            var st = stat()
            guard lstat(url.path, &st) == 0 else { out.append((path, data)); continue }
            if st.st_mode & S_IFMT == S_IFREG, FileManager.default.contents(atPath: url.path) == data { continue }
            clashes.append(Diagnostic(.error, file: SitePaths.display(url),
                                      "already exists; `dossier new` never overwrites a file"))
        }
        guard clashes.isEmpty else {
            throw DossierError(clashes + [Diagnostic(
                "nothing was written; move these away, or make the project in an empty or new folder")])
        }
        return out
    }
}
