import ArgumentParser
import DossierKit

/// One spelling per option (docs/design-system.md, "Command line"): an old spelling still
/// works, rewritten to the current one before parsing, and is not shown in help.
enum OptionAliases {
    /// Old spelling → current spelling.
    static let table = ["--out": "--output"]

    /// `args` with every old spelling (also as `--out=VALUE`) before a `--` replaced, and
    /// `-q` / `--quiet` moved from wherever it stands before a `--` to the end of that part,
    /// so it may also come before the command's name (`dossier -q build`, `dossier vault -q
    /// list`): every command takes it, and no option takes a value that starts with `-`.
    static func canonical(_ args: [String]) -> [String] {
        var out: [String] = []
        var quiet: [String] = []
        var rest = false
        for a in args {
            if !rest && a == "--" { rest = true; out += quiet; quiet = [] }
            if rest { out.append(a); continue }
            if a == "-q" || a == "--quiet" { quiet.append(a); continue }
            let name = a.split(separator: "=", maxSplits: 1).first.map(String.init) ?? a
            if let now = table[name] { out.append(now + a.dropFirst(name.count)) } else { out.append(a) }
        }
        return out + quiet
    }
}

/// `-q` / `--quiet`, which every command takes (docs/design-system.md, "Command line"): with it
/// a command prints nothing but errors, warnings and the output asked for (a dry run's
/// list, a command's data on standard output); a success is silent.
struct QuietFlag: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print nothing but errors, warnings and the output asked for.")
    var quiet = false

    /// A progress or result line on standard error, unless quiet.
    func note(_ message: String) { if !quiet { Console.note(message) } }

    /// A result line on standard output, unless quiet.
    func say(_ message: String) { if !quiet { print(message) } }

    /// A line about something left undone (an item not imported, a conflict copy, a server
    /// copy under the old password): on standard output, or with -q on standard error, so
    /// it is not lost.
    func keep(_ message: String) { if quiet { Console.note(message) } else { print(message) } }
}
