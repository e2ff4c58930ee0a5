import ArgumentParser
import DossierKit

/// One spelling per option (docs/manifest.md, "Command line"): an old spelling still
/// works, rewritten to the current one before parsing, and is not shown in help.
enum OptionAliases {
    /// Old spelling → current spelling.
    static let table = ["--out": "--output"]

    /// `args` with every old spelling (also as `--out=VALUE`) before a `--` replaced.
    static func canonical(_ args: [String]) -> [String] {
        var out: [String] = []
        var rest = false
        for a in args {
            if rest || a == "--" { rest = true; out.append(a); continue }
            let name = a.split(separator: "=", maxSplits: 1).first.map(String.init) ?? a
            if let now = table[name] { out.append(now + a.dropFirst(name.count)) } else { out.append(a) }
        }
        return out
    }
}

/// `-q` / `--quiet` for commands that say what they did: with it they print nothing but
/// errors and the output asked for (a dry run's list, a command's data on stdout).
struct QuietFlag: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print nothing but errors (and the output asked for).")
    var quiet = false

    /// A progress or result line on standard error, unless quiet.
    func note(_ message: String) { if !quiet { Console.note(message) } }
}
