import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// The rules for the manifest's `output:` folder, which a full build replaces wholesale
/// (docs/manifest.md, "The output folder"). A build must never swap away a folder the
/// user made: the output is a relative path inside the project, not an input folder,
/// and — when it already exists — a folder a Dossier build made.
public enum OutputFolder {
    /// Folders of the project that are inputs and can never be the output (nor hold it,
    /// nor lie inside it).
    public static let inputFolders: Set<String> = ["content", "templates", "static", "data", ".dossier"]

    /// Checks the text of `output:` (from `dossier.yml` line `line`) and returns the folder.
    ///
    /// Refused: empty, absolute, `~`, `.`/`..` components, backslashes or control
    /// characters, the project folder itself, a hidden first component, an input folder
    /// (``inputFolders``) or a folder inside one, and `dossier.yml`.
    public static func resolve(_ text: String, root: URL, file: String, line: Int) throws -> URL {
        func refuse(_ why: String) -> DossierError {
            DossierError(file: file, line: line,
                         "output: \(why) (it must be a folder inside the project, such as _site)")
        }
        let shown = ControlCharacters.visible(text)
        if text.isEmpty { throw refuse("empty") }
        if text.hasPrefix("/") || text.hasPrefix("~") { throw refuse("'\(shown)' is not a relative path") }
        if text.unicodeScalars.contains(where: { ControlCharacters.isControl($0) }) || text.contains("\\") {
            throw refuse("'\(shown)' holds a control character or backslash")
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.isEmpty || parts.contains(where: { $0 == "." || $0 == ".." }) {
            throw refuse("'\(shown)' leaves the project or names the project folder itself")
        }
        if parts[0].hasPrefix(".") { throw refuse("'\(shown)' is a hidden folder") }
        if inputFolders.contains(parts[0]) || inputFolders.contains(parts[0].lowercased()) {
            throw refuse("'\(shown)' is the project's input folder \(parts[0])/")
        }
        if parts.count == 1 && parts[0].lowercased() == "dossier.yml" { throw refuse("'\(shown)' is the manifest") }
        return root.appendingPathComponent(parts.joined(separator: "/"))
    }

    /// Refuses an output that overlaps an input a section names (`recall: logs: out/`):
    /// the output may neither be nor contain nor lie inside one.
    public static func checkInputs(_ output: URL, inputs: [String], root: URL, file: String, line: Int) throws {
        let out = output.standardizedFileURL.path
        for raw in inputs where !raw.isEmpty {
            let cleaned = raw.split(separator: "*", maxSplits: 1).first.map(String.init) ?? raw
            guard !cleaned.isEmpty else { continue }
            let url = cleaned.hasPrefix("/") ? URL(fileURLWithPath: cleaned) : root.appendingPathComponent(cleaned)
            let p = url.standardizedFileURL.path
            let q = p.hasSuffix("/") ? String(p.dropLast()) : p
            if q == root.standardizedFileURL.path { continue }
            if q == out || q.hasPrefix(out + "/") || out.hasPrefix(q + "/") {
                throw DossierError(file: file, line: line,
                                   "output: the folder overlaps the section input '\(ControlCharacters.visible(raw))'")
            }
        }
    }

    /// Whether `output` may be replaced by a build: it does not exist, is an empty
    /// folder, or a Dossier build made it (its `<output>.manifest.json` lies beside it,
    /// or the build state `.dossier/state-<name>.bin` names it).
    public static func checkOwned(_ output: URL, manifest: URL, state: URL, file: String, line: Int) throws {
        let fm = FileManager.default
        var isDir = false
        guard fm.fileExists(atPath: output.path, isDirectory: &isDir) else { return }
        guard isDir else {
            throw DossierError(file: file, line: line,
                               "output: a file is in the way of the output folder; Dossier will not replace it")
        }
        if fm.fileExists(atPath: manifest.path) || fm.fileExists(atPath: state.path) { return }
        if let items = try? fm.contentsOfDirectory(atPath: output.path), items.isEmpty { return }
        throw DossierError(file: file, line: line, "output: this folder exists and was not made by Dossier "
                           + "(no \(manifest.lastPathComponent) beside it); a build would replace everything in it — "
                           + "move it away or choose another output")
    }
}
