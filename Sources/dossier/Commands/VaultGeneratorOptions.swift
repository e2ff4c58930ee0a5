import ArgumentParser
import DossierKit
import TextBasics
import Vault

/// The generator's options, shared by `vault generate`, `add --generate` and `edit
/// --generate` (docs/vault-cli.md, docs/vault-generator.md). Numbers are read whatever
/// follows the option (`--min-digits -1` is the value -1, refused as negative with exit
/// status 1, not a missing value); an option of the other mode — a password option with
/// `--passphrase`, a passphrase option without it — is an error, never ignored.
struct GeneratorOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Password length, 1–64 (default 20).") var length: Int?
    @Option(parsing: .unconditional, help: "Minimum upper-case letters (default 1).") var minUpper: Int?
    @Option(parsing: .unconditional, help: "Minimum lower-case letters (default 1).") var minLower: Int?
    @Option(parsing: .unconditional, help: "Minimum digits (default 1).") var minDigits: Int?
    @Option(parsing: .unconditional, help: "Minimum special characters (default 1).") var minSpecial: Int?
    @Flag(help: "No upper-case letters.") var noUpper = false
    @Flag(help: "No lower-case letters.") var noLower = false
    @Flag(help: "No digits.") var noDigits = false
    @Flag(help: "No special characters.") var noSpecial = false
    @Flag(help: "Leave out look-alike characters (0 O 1 I l |).") var excludeLookAlikes = false
    @Flag(help: "A passphrase of words instead.") var passphrase = false
    @Option(parsing: .unconditional, help: "Passphrase words, 3–20 (default 5).") var words: Int?
    @Option(parsing: .unconditional, help: "Passphrase separator (default -).") var separator: String?
    @Flag(help: "Capitalise passphrase words.") var capitalize = false
    @Flag(help: "Append a digit to one passphrase word.") var digit = false

    /// The settings; a minimum given for a class that is switched off is an error.
    func settings() throws -> GeneratorSettings {
        var m: [CharacterClass: Int] = [:]
        for (c, off, min, name) in [(CharacterClass.upper, noUpper, minUpper, "upper"),
                                    (.lower, noLower, minLower, "lower"),
                                    (.digits, noDigits, minDigits, "digits"), (.special, noSpecial, minSpecial,
                                            "special")] {
            if off {
                if let min, min != 0 {
                    throw DossierError("--min-\(name) \(min) asks for a class that --no-\(name) switches off")
                }
            } else {
                m[c] = min ?? 1
            }
        }
        return GeneratorSettings(length: length ?? 20, minimums: m, excludeLookAlikes: excludeLookAlikes)
    }

    /// The options given that belong to the other mode, as typed (`--length`, `--words`, …).
    func otherModeOptions() -> [String] {
        if passphrase {
            let given: [(Bool, String)] = [
                (length != nil, "--length"), (minUpper != nil, "--min-upper"), (minLower != nil, "--min-lower"),
                (minDigits != nil, "--min-digits"), (minSpecial != nil, "--min-special"), (noUpper, "--no-upper"),
                (noLower, "--no-lower"), (noDigits, "--no-digits"), (noSpecial, "--no-special"),
                (excludeLookAlikes, "--exclude-look-alikes")]
            return given.filter(\.0).map(\.1)
        }
        let given: [(Bool, String)] = [(words != nil, "--words"), (separator != nil, "--separator"),
                                       (capitalize, "--capitalize"), (digit, "--digit")]
        return given.filter(\.0).map(\.1)
    }

    func make() throws -> () -> Secret {
        let other = otherModeOptions()
        guard other.isEmpty else {
            throw DossierError(passphrase
                ? "\(other.joined(separator: ", ")) set\(other.count == 1 ? "s" : "") a password, not a passphrase: "
                    + "leave \(other.count == 1 ? "it" : "them") out, or leave out --passphrase"
                : "\(other.joined(separator: ", ")) set\(other.count == 1 ? "s" : "") a passphrase: add --passphrase, "
                    + "or leave \(other.count == 1 ? "it" : "them") out")
        }
        return try VaultCLI.wrap {
            if passphrase {
                let g = try PassphraseGenerator(PassphraseSettings(words: words ?? 5, separator: separator ?? "-",
                                                                   capitalize: capitalize, includeDigit: digit))
                return { g.generate() }
            }
            let g = try PasswordGenerator(try settings())
            return { g.generate() }
        }
    }
}
