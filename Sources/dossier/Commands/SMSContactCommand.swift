import ArgumentParser
import DossierKit
import Foundation
import SecureSMS
import TextBasics

// `dossier sms contact …`: contacts, their keys and safety numbers (see SMSCommand.swift).

// MARK: - Contacts

struct SMSContact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contact", abstract: "Add, edit, remove, resynchronise and list contacts.",
        discussion: """
        Examples:
          dossier sms contact add Bob   # send your key message, paste Bob's, compare
          dossier sms contact list
        """,
        subcommands: [Add.self, Edit.self, Remove.self, Resync.self, List.self])

    /// Options of the key exchange shared by `add` and `resync`.
    struct ExchangeOptions: ParsableArguments {
        @Option(help: "The key message the other person sent (else DOSSIER_SMS_KEY or the terminal).") var key: String?
        @Option(help: "The safety number shown on the other person's phone (else DOSSIER_SMS_CONFIRM or the terminal).")
        var confirm: String?
        @Flag(help: "Only print your key message now; finish later.") var later = false
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a contact: exchange key messages, compare the safety number.",
            discussion: """
            Prints your key message (send it to the contact by SMS), reads theirs (--key, DOSSIER_SMS_KEY or the terminal), prints the safety number, and agrees the keys only when the number typed from their phone (--confirm, DOSSIER_SMS_CONFIRM or the terminal) is the same. Run it again to continue an unfinished exchange: your key message stays the same until the exchange completes.

            Example:
              dossier sms contact add Bob --key "$BOBS_KEY"   # then type the safety number
            """)
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String
        @OptionGroup var exchange: ExchangeOptions
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var ks = try store.open()
            let name = self.name.trimmingWhitespace()
            guard !name.isEmpty, name.count <= 64 else { throw DossierError("a contact name is 1 to 64 characters") }
            var idx = ks.contacts.firstIndex { $0.name.lowercased() == name.lowercased() }
            if let i = idx, !ks.contacts[i].isPending, !ks.contacts[i].isResyncing {
                throw DossierError("\(ks.contacts[i].name) is already a contact; use `contact resync` to exchange new keys")
            }
            if idx == nil {
                ks.contacts.append(Contact(name: name, now: SMS.now()))
                idx = ks.contacts.count - 1
                try SMS.wrap { try ks.save() }
            }
            let i = idx!
            if !ks.contacts[i].hasOpenExchange {
                // A pending contact or resync from a keystore of the contact-code era.
                quiet.note("Contact codes are no longer used: \(ks.contacts[i].name)'s exchange starts again with key messages.")
                ks.contacts[i].beginExchange()
                try SMS.wrap { try ks.save() }
            }
            let resync = ks.contacts[i].isResyncing
            if try SMS.exchange(&ks, i, key: exchange.key, confirm: exchange.confirm, later: exchange.later, quiet: quiet) {
                quiet.note(resync ? "Resynchronised with \(ks.contacts[i].name)." : "\(ks.contacts[i].name) is ready: messages can be exchanged.")
            } else {
                quiet.note("\(ks.contacts[i].name) is pending.")
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Rename a contact.",
            discussion: "Example: dossier sms contact edit Bob --name \"Bob Smith\"")
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String
        @Option(name: .customLong("name"), help: "The new name.") var newName: String
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var ks = try store.open()
            let i = try SMS.wrap { try ks.contactIndex(name) }
            let n = newName.trimmingWhitespace()
            guard !n.isEmpty, n.count <= 64 else { throw DossierError("a contact name is 1 to 64 characters") }
            if ks.contacts.enumerated().contains(where: { $0.offset != i && $0.element.name.lowercased() == n.lowercased() }) {
                throw DossierError("there is already a contact named \(n)")
            }
            ks.contacts[i].name = n
            try SMS.wrap { try ks.save() }
            quiet.note("Renamed to \(n).")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a contact and all its keys.",
            discussion: "Example: dossier sms contact rm Bob")
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var ks = try store.open()
            let i = try SMS.wrap { try ks.contactIndex(name) }
            let removed = ks.contacts.remove(at: i)
            try SMS.wrap { try ks.save() }
            quiet.note("Removed \(removed.name) and every key kept for them.")
        }
    }

    struct Resync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resync", abstract: "Agree new keys with a contact by a fresh exchange; both chains restart.",
            discussion: """
            Both people run it: a new key pair on each side, new key messages, a new safety number to compare. Until it completes the old chains keep working. After it completes, a copy of the keystore stolen before the resync no longer reads new messages.

            Example:
              dossier sms contact resync Bob --key "$BOBS_NEW_KEY"   # then type the number
            """)
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String
        @OptionGroup var exchange: ExchangeOptions
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            var ks = try store.open()
            let i = try SMS.wrap { try ks.contactIndex(name) }
            if !ks.contacts[i].hasOpenExchange {
                ks.contacts[i].beginExchange()
                try SMS.wrap { try ks.save() }
            }
            if try SMS.exchange(&ks, i, key: exchange.key, confirm: exchange.confirm, later: exchange.later, quiet: quiet) {
                quiet.note("Resynchronised with \(ks.contacts[i].name).")
            } else {
                quiet.note("Resynchronisation with \(ks.contacts[i].name) started; the old keys work until it completes.")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List contacts with their message counts (no secrets).",
            discussion: """
            One line per contact, tab-separated: name, status, sent, received, skipped.

            Example: dossier sms contact list --keystore alice.keystore
            """)
        @OptionGroup var store: KeystoreOptions
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            let ks = try store.open()
            for e in Inventory(ks).contacts {
                SMS.out("\(e.name)\t\(e.status)\tsent \(e.sent)\treceived \(e.received)\tskipped \(e.skippedBacklog)")
            }
            for c in ks.contacts where c.usesLegacyCodes {
                SMS.warnLegacy(c.name)
            }
        }
    }
}
