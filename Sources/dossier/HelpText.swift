import DossierKit
import Foundation

/// The long help of the commands: one text file per command in `Help/` at the top of the
/// repository (`Help/vault/sync.txt` for `dossier vault sync`, `Help/dossier.txt` for
/// `dossier` itself), compiled into the binary by the `EmbedFolders` plugin. A writer
/// edits the file, not Swift; the file's paragraphs are joined by ``ProseText/unwrap(_:)``
/// and ArgumentParser wraps them to the terminal.
enum HelpText {
    /// The discussion of the command named by its words after `dossier` ("vault sync"),
    /// or of `dossier` itself for "dossier".
    static func discussion(_ command: String) -> String {
        let path = command.split(separator: " ").joined(separator: "/") + ".txt"
        guard let b64 = EmbeddedHelp.files[path], let data = Data(base64Encoded: b64) else {
            // Every command names its file; a missing one is a build mistake that the help
            // tests (Tests/e2e/test_cli_help.py) meet at once.
            preconditionFailure("Help/\(path) is missing")
        }
        return ProseText.unwrap(String(decoding: data, as: UTF8.self))
    }
}
