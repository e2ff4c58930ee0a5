import ArgumentParser
import DossierKit
import SecureSMS
import TextBasics

// `dossier sms contact …`: contacts, their keys and safety numbers (see SMSCommand.swift).

// MARK: - Contacts

struct SMSContact: AsyncParsableCommand {
    static let configuration = HelpText.command("sms contact", subcommands: [
        Add.self, Edit.self, Remove.self, Resync.self, List.self
    ])

    /// Options of the key exchange shared by `add` and `resync`.
    struct ExchangeOptions: ParsableArguments {
        @Option(help: "The key message the other person sent (else DOSSIER_SMS_KEY or the terminal).") var key: String?
        @Option(help: "The safety number shown on the other person's phone (else DOSSIER_SMS_CONFIRM or the terminal).")
        var confirm: String?
        @Flag(help: "Only print your key message now; finish later.") var later = false

        /// The step `add` and `resync` share: open an exchange with contact `i` if none is
        /// open (`startNote` printed then), run it, and print `done` or `waiting`.
        func run(_ ks: inout Keystore, _ i: Int, quiet: QuietFlag, startNote: String? = nil,
                 done: String, waiting: String) throws {
            if !ks.contacts[i].hasOpenExchange {
                if let startNote { quiet.note(startNote) }
                ks.contacts[i].beginExchange()
                try SMS.wrap { try ks.save() }
            }
            let agreed = try SMS.exchange(&ks, i, key: key, confirm: confirm, later: later, quiet: quiet)
            quiet.note(agreed ? done : waiting)
        }
    }

    /// The keystore and the contact that `edit`, `rm` and `resync` act on.
    struct ContactChoice: ParsableArguments {
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String

        /// The keystore, opened (its lock held), and the index of the contact named.
        func open() throws -> (Keystore, Int) {
            let ks = try store.open()
            return (ks, try ks.index(of: name))
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = HelpText.command("sms contact add")
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String
        @OptionGroup var exchange: ExchangeOptions
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var ks = try store.open()
            let name = self.name.trimmingWhitespace()
            if let problem = Contact.problem(withName: name) { throw DossierError(problem) }
            var idx = ks.contacts.firstIndex { $0.name.lowercased() == name.lowercased() }
            if let i = idx, !ks.contacts[i].isPending, !ks.contacts[i].isResyncing {
                throw DossierError(
                    "\(ks.contacts[i].name) is already a contact; use `contact resync` to exchange new keys")
            }
            if idx == nil {
                ks.contacts.append(Contact(name: name, now: SMS.now()))
                idx = ks.contacts.count - 1
                try SMS.wrap { try ks.save() }
            }
            let i = idx!, shown = ks.contacts[i].name
            // Without an open exchange: a pending contact or resync from a keystore of the
            // contact-code era.
            try exchange.run(&ks, i, quiet: quiet,
                             startNote: "Contact codes are no longer used: \(shown)'s exchange starts again with key "
                                 + "messages.",
                             done: ks.contacts[i].isResyncing ? "Resynchronised with \(shown)."
                                 : "\(shown) is ready: messages can be exchanged.",
                             waiting: "\(shown) is pending.")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = HelpText.command("sms contact edit")
        @OptionGroup var contact: ContactChoice
        @Option(name: .customLong("name"), help: "The new name.") var newName: String
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var (ks, i) = try contact.open()
            let n = newName.trimmingWhitespace()
            if let problem = Contact.problem(withName: n) { throw DossierError(problem) }
            if ks.contacts.enumerated().contains(where: {
                $0.offset != i && $0.element.name.lowercased() == n.lowercased()
            }) {
                throw DossierError("there is already a contact named \(n)")
            }
            ks.contacts[i].name = n
            try SMS.wrap { try ks.save() }
            quiet.note("Renamed to \(n).")
        }
    }

    // `rm` and `resync` declare the same contact and quiet options and open the contact
    // alike (`duplicates` pairs them); what they share is already ContactChoice and
    // ExchangeOptions, and the rest is each one's own work.
    struct Remove: AsyncParsableCommand {
        static let configuration = HelpText.command("sms contact rm")
        @OptionGroup var contact: ContactChoice
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var (ks, i) = try contact.open()
            let removed = ks.contacts.remove(at: i)
            try SMS.wrap { try ks.save() }
            quiet.note("Removed \(removed.name) and every key kept for them.")
        }
    }

    struct Resync: AsyncParsableCommand {
        static let configuration = HelpText.command("sms contact resync")
        @OptionGroup var contact: ContactChoice
        @OptionGroup var exchange: ExchangeOptions
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var (ks, i) = try contact.open()
            let shown = ks.contacts[i].name
            try exchange.run(&ks, i, quiet: quiet, done: "Resynchronised with \(shown).",
                             waiting: "Resynchronisation with \(shown) started; the old keys work until it completes.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = HelpText.command("sms contact list")
        @OptionGroup var store: KeystoreOptions
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            let ks = try store.open()
            for e in Inventory(ks).contacts {
                SMS.out("\(Contact.printable(e.name))\t\(e.status)\tsent \(e.sent)\treceived \(e.received)"
                            + "\tskipped \(e.skippedBacklog)")
            }
            for c in ks.contacts where c.usesLegacyCodes {
                SMS.warnLegacy(c.name)
            }
        }
    }
}
