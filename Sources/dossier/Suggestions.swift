import ArgumentParser
import DossierKit
import TextBasics

/// "Did you mean …?" for mistyped subcommands and options.
///
/// A word is suggested when its edit distance (Damerau–Levenshtein: insert, delete,
/// substitute or swap two neighbours, each costing 1) to the typed word is at most
/// `max(1, min(3, typed.count / 3))`, or when one is a prefix of the other and the
/// shorter has at least 3 characters. The closest candidates (ties in declaration
/// order) are listed, at most three. For options with no close candidate, common
/// synonyms are tried (`--min-symbols` → `--min-special`, see ``synonyms``).
enum Suggestions {
    /// The subcommand chain named by `args`, and the first word that names no
    /// subcommand where one is required (a command with subcommands, no default and no
    /// arguments of its own): `(path, typo)`.
    static func walk(
        _ root: any ParsableCommand.Type, _ args: [String]
    ) -> (path: [any ParsableCommand.Type], typo: String?) {
        var path: [any ParsableCommand.Type] = [root]
        for arg in args {
            if arg == "--" { break }
            if arg.hasPrefix("-") { continue }
            let current = path.last!
            let subs = current.configuration.subcommands
            if subs.isEmpty { break }
            if let next = subs.first(where: { names(of: $0).contains(arg) }) {
                path.append(next)
                continue
            }
            if arg == "help" { break }
            if current.configuration.defaultSubcommand == nil { return (path, arg) }
            break
        }
        return (path, nil)
    }

    static func names(of command: any ParsableCommand.Type) -> [String] {
        [command.configuration.commandName ?? command._commandName] + command.configuration.aliases
    }

    /// A usage message for an unknown subcommand in `args`, if there is one.
    /// `dossier help biuld` (help followed by a mistyped command) counts too.
    static func unknownCommand(_ root: any ParsableCommand.Type, _ args: [String]) -> String? {
        if let h = args.firstIndex(of: "help"), h + 1 < args.count, !args[..<h].contains("--") {
            var without = args
            without.remove(at: h)
            if let message = unknownCommand(root, without) { return message }
        }
        let (path, typo) = walk(root, args)
        guard let typo else { return nil }
        let owner = path.map { names(of: $0)[0] }.joined(separator: " ")
        let visible = path.last!.configuration.subcommands.filter { $0.configuration.shouldDisplay }
        let candidates = visible.map { names(of: $0)[0] } + ["help"]
        var message = "Error: '\(typo)' is not a \(owner) command."
        let close = closest(to: typo, in: candidates)
        if !close.isEmpty { message += " Did you mean \(close.map { "'\($0)'" }.joined(separator: " or "))?" }
        message += "\nCommands: \(candidates.filter { $0 != "help" }.joined(separator: ", ")). See '\(owner) --help'."
        return message
    }

    /// A hint for ArgumentParser's "Unknown option '--x'" message, from the options the
    /// help of the command named by `args` lists.
    static func unknownOption(_ root: any ParsableCommand.Type, _ args: [String], message: String) -> String? {
        guard let range = message.textRange(of: "Unknown option '") else { return nil }
        let rest = message[range.upperBound...]
        guard let end = rest.firstIndex(of: "'") else { return nil }
        let typed = String(rest[..<end])
        let command = walk(root, args).path.last!
        let help = root.helpMessage(for: command, columns: 10_000)
        var options: [String] = []
        for token in help.split(whereSeparator: { " ,=<>[]()|\n".contains($0) })
        where token.hasPrefix("--") && token.count > 2 {
            let name = String(token)
            if !options.contains(name) { options.append(name) }
        }
        var close = closest(to: typed, in: options)
        if close.isEmpty { close = closest(to: synonymized(typed), in: options) }
        guard !close.isEmpty else { return nil }
        return "Did you mean \(close.map { "'\($0)'" }.joined(separator: " or "))?"
    }

    /// Words people type for what Dossier's options call otherwise.
    static let synonyms: [String: String] = [
        "symbol": "special", "symbols": "special", "punctuation": "special", "specials": "special",
        "number": "digits", "numbers": "digits", "digit": "digits", "numerals": "digits",
        "uppercase": "upper", "capitals": "upper", "caps": "upper", "lowercase": "lower",
        "len": "length", "size": "length", "quiet": "quiet", "silent": "quiet",
    ]

    /// `typed` with each `-`-separated word replaced by its synonym, if any.
    static func synonymized(_ typed: String) -> String {
        let dashes = typed.prefix { $0 == "-" }
        let words = typed.dropFirst(dashes.count).split(separator: "-", omittingEmptySubsequences: false)
        return dashes + words.map { synonyms[String($0)] ?? String($0) }.joined(separator: "-")
    }

    /// The candidates close to `typed` (see the type's documentation), closest first: the
    /// rule of configuration keys (`KeySuggestion.closest`), so commands, options and keys
    /// are suggested alike — except that a candidate equal to `typed` (a synonym that
    /// names an option exactly) is the one suggestion.
    static func closest(to typed: String, in candidates: [String]) -> [String] {
        candidates.contains(typed) ? [typed] : KeySuggestion.closest(to: typed, in: candidates)
    }
}

/// `dossier version`: prints the same as `dossier --version`.
struct VersionCommand: ParsableCommand {
    static let configuration = HelpText.command("version")
    @OptionGroup var quiet: QuietFlag

    func run() throws { print(DossierVersion.string) }
}
