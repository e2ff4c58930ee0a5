// Compiled only with the vault domain (Package.swift excludes VaultCommand.swift otherwise).
#if DOMAIN_VAULT
import ArgumentParser
import DossierKit
import Vault
import TextBasics

// MARK: - list / show / note

struct VaultListCommand: ParsableCommand {
    static let configuration = HelpText.command("vault list")
    @Argument(help: "The vault file.") var file: String
    @Flag(help: "Show passwords, descriptions, note text and URLs as stored.") var reveal = false
    @Flag(help: "A JSON array of items (docs/vault-cli.md).") var json = false
    @OptionGroup var quiet: QuietFlag

    /// One item as `list --json` prints it; secrets only with --reveal.
    struct Line: Encodable {
        var id: String, kind: String, title: String, username: String, website: String, folder: String
        var created: String, modified: String, passwordChanged: String
        var password: String?, details: String?, text: String?
        var uris: [String], tags: [String], expires: String?, favorite: Bool, reprompt: Bool, excludeFromReports: Bool
        /// Field names and whether hidden; values only with --reveal.
        var fields: [Field]
        var hasTOTP: Bool, totp: String?
        /// Earlier passwords' dates; the passwords only with --reveal.
        var history: [History]
        struct Field: Encodable { var name: String; var hidden: Bool; var value: String? }
        struct History: Encodable { var changed: String; var password: String? }
    }

    func run() throws {
        let v = try VaultCLI.open(file, quiet: quiet.quiet)
        let items = v.items.sorted {
            ($0.title.lowercased(), $0.id.uuidString) < ($1.title.lowercased(), $1.id.uuidString)
        }
        if json {
            func time(_ d: Date) -> String { ISODateText.format(d, fractionalSeconds: true) }
            try VaultCLI.printJSON(items.map { i in
                Line(id: i.id.uuidString.lowercased(), kind: i.kind.rawValue,
                     title: reveal ? i.title : URLRedaction.text(i.title),
                     username: i.username, website: reveal ? i.website : URLRedaction.website(i.website),
                     folder: i.folder,
                     created: time(i.created), modified: time(i.modified), passwordChanged: time(i.passwordChanged),
                     password: reveal ? i.password.reveal : nil, details: reveal ? i.details.reveal : nil,
                     text: reveal ? i.text.reveal : nil,
                     uris: reveal ? i.uris : i.uris.map(URLRedaction.website), tags: i.tags,
                     expires: i.expires.map(time),
                     favorite: i.favorite, reprompt: i.reprompt, excludeFromReports: i.excludeFromReports,
                     fields: i.fields.map {
                         .init(name: $0.name, hidden: $0.hidden, value: reveal ? $0.value.reveal : nil)
                     },
                     hasTOTP: !i.totp.isEmpty, totp: reveal && !i.totp.isEmpty ? i.totp.reveal : nil,
                     history: i.history.map {
                         .init(changed: time($0.changed), password: reveal ? $0.password.reveal : nil)
                     })
            })
            return
        }
        for i in items {
            // without --reveal, URLs lose user-info, query and fragment (credentials, tokens)
            var cols = [String(i.id.uuidString.lowercased().prefix(8)), i.kind.rawValue,
                        reveal ? i.title : URLRedaction.text(i.title)]
            if i.kind == .entry {
                cols += [i.username, reveal ? i.website : URLRedaction.website(i.website)]
                    + (reveal ? [i.password.reveal] : [])
            }
            print(cols.joined(separator: "\t"))
        }
    }
}

struct VaultShowCommand: ParsableCommand {
    static let configuration = HelpText.command("vault show")
    @OptionGroup var choice: VaultItemChoice
    @Flag(help: "Show the password, description or note text.") var reveal = false
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let (_, item) = try choice.open(quiet: quiet)
        print(VaultCLI.describe(item, reveal: reveal))
    }
}

struct VaultNoteCommand: ParsableCommand {
    static let configuration = HelpText.command("vault note")
    @Argument(help: "The vault file.") var file: String
    @Option(help: "The note's title.") var title: String
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        var v = try VaultCLI.open(file, quiet: quiet.quiet)
        let text = String(decoding: Stdio.readInputToEnd(), as: UTF8.self)
        let n = VaultItem.note(title: title, text: Secret(text))
        v.upsert(n)
        try VaultCLI.wrap { try v.save() }
        quiet.say("added note \(n.id.uuidString.lowercased())")
    }
}
#endif
