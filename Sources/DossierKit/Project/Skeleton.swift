import Foundation
import Render

/// `dossier new`: a small project that builds as it is.
public enum Skeleton {
    public static func create(at folder: URL, title: String?) throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder.appendingPathComponent("dossier.yml").path) {
            throw DossierError(file: SitePaths.display(folder.appendingPathComponent("dossier.yml")), "a project already exists here")
        }
        let name = title ?? folder.lastPathComponent
        let quoted = "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        let files: [String: String] = [
            "dossier.yml": """
            # Dossier project manifest — see docs/manifest.md.
            title: \(quoted)
            description: Reports built with Dossier.
            # base_url: https://example.org/my-study/   # absolute URLs in sitemap.xml
            # output: _site
            # Sections read domain data, e.g.:
            # recall:
            #   strings: data/strings.txt
            #   logs: data/sessions/

            """,
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
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            let url = folder.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(Data(text.utf8), to: url, sync: false)
        }
    }
}
