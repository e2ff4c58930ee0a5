#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import DossierKit

/// One command at a time on a vault (docs/vault-cli.md, "One command at a time"): every
/// command that opens, creates or syncs a vault file holds an exclusive lock on
/// `<vault>.lock` beside it, from before it reads the file until the process ends. Two
/// commands at once — `vault add` in two terminals, an import while a sync runs — each
/// read the same vault and saved its own change over the other's: the first one's change
/// was lost without a word.
extension VaultCLI {
    nonisolated(unsafe) private static var held: [String: CommandLock] = [:]

    /// The lock file of the vault at `path`: `<vault>.lock` beside the file the path leads
    /// to (its folder's symbolic links resolved, so two spellings of one vault share it).
    static func lockPath(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if realpath(url.path, &resolved) != nil { return String(cString: resolved) + ".lock" }
        let folder = url.deletingLastPathComponent().path
        if realpath(folder, &resolved) != nil {
            return String(cString: resolved) + "/" + url.lastPathComponent + ".lock"
        }
        return url.path + ".lock"
    }

    /// Takes the vault's lock for the rest of this process, saying first whom it waits for
    /// when another command holds it. Goes on without it where no lock can be had.
    static func holdLock(_ path: String) {
        let file = lockPath(path)
        guard held[file] == nil else { return }
        held[file] = CommandLock.take(file, .write, command: CommandLock.currentCommand,
                                      subject: "this vault (one command at a time opens or changes it)") {
            Console.note($0)
        }
    }
}
