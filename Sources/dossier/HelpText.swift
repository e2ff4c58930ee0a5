import ArgumentParser
import DossierKit

/// The prose of the commands' help: one text file per command in `Help/` at the top of the
/// repository (`Help/vault/sync.txt` for `dossier vault sync`, `Help/dossier.txt` for
/// `dossier` itself), compiled into the binary by the `EmbedFolders` plugin. A writer
/// edits the file, not Swift (`Help/README.md`). Its paragraphs are joined by
/// ``ProseText/unwrap(_:)``; the first paragraph is the command's one-line abstract, the
/// rest its long help (the discussion), which ArgumentParser wraps to the terminal.
enum HelpText {
    /// The configuration of a command: its name is the last of `command`'s words ("vault
    /// sync" → `sync`), its help the file of ``parts(_:)``; `hidden` leaves it out of
    /// the parent's list of commands (oracles and benchmarks for the tests).
    static func command(_ command: String, subcommands: [any ParsableCommand.Type] = [],
                        hidden: Bool = false) -> CommandConfiguration {
        let help = parts(command)     // (read once: every command's is read at every start)
        return CommandConfiguration(commandName: String(command.split(separator: " ").last ?? ""),
                                    abstract: help.abstract, discussion: help.discussion,
                                    shouldDisplay: !hidden, subcommands: subcommands)
    }

    /// The one-line abstract and the long help (discussion) of the command named by its
    /// words after `dossier` ("vault sync"), or of `dossier` itself for "dossier".
    static func parts(_ command: String) -> (abstract: String, discussion: String) {
        let path = command.split(separator: " ").joined(separator: "/") + ".txt"
        guard let b64 = EmbeddedHelp.files[path], let data = Data(base64Encoded: b64) else {
            // Every command names its file; a missing one is a build mistake that the help
            // tests (Tests/e2e/test_cli_help.py) meet at once.
            preconditionFailure("Help/\(path) is missing")
        }
        let text = ProseText.unwrap(String(decoding: data, as: UTF8.self))
        let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count == 3, lines[1].isEmpty else { return (text, "") }
        return (String(lines[0]), String(lines[2]))
    }
}
