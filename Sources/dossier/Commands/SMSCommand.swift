import ArgumentParser
import DossierKit
import Foundation
import SecureSMS

/// `dossier sms …`: the SecureSMS tools (keystore, contacts, encrypt, decrypt, count).
struct SMSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sms",
        abstract: "Encrypt messages that fit one SMS, and manage the SecureSMS keystore.",
        discussion: """
        Two people add each other as contacts (each reads their code to the other), then paste 160-character messages through any messaging app. See docs/securesms-cli.md.

        Example:
          dossier sms init --account alice
          dossier sms contact add Bob          # shows your code, asks for Bob's
          echo "See you at 6" | dossier sms encrypt Bob
          dossier sms decrypt Bob "$PASTED"

        Secrets are never taken from arguments: the password comes from DOSSIER_SMS_PASSWORD, DOSSIER_SMS_PASSWORD_FD or the terminal; a contact's code from DOSSIER_SMS_CODE, DOSSIER_SMS_CODE_FD or the terminal. The keystore is --keystore, else DOSSIER_SMS_KEYSTORE, else ~/.dossier/sms.keystore.
        """,
        subcommands: [SMSInit.self, SMSPasswd.self, SMSContact.self, SMSEncrypt.self, SMSDecrypt.self,
                      SMSCount.self, SMSAlphabet.self, SMSBench.self]
    )
}

// MARK: - Shared options and helpers

struct KeystoreOptions: ParsableArguments {
    @Option(name: .long, help: "The keystore file (default: $DOSSIER_SMS_KEYSTORE or ~/.dossier/sms.keystore).")
    var keystore: String?

    var url: URL {
        if let k = keystore { return URL(fileURLWithPath: k) }
        if let e = ProcessInfo.processInfo.environment["DOSSIER_SMS_KEYSTORE"], !e.isEmpty { return URL(fileURLWithPath: e) }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".dossier/sms.keystore")
    }

    func open() throws -> Keystore {
        let url = self.url
        // A locked keystore is reported before asking for a password.
        if let until = (try? Keystore.lockoutState(at: url))?.lockedUntil, until > SMS.now() {
            throw SMS.error(SecureSMSError.locked(until: until))
        }
        let pw = try SecretInput.read(prompt: "Keystore password: ", environment: "DOSSIER_SMS_PASSWORD")
        return try SMS.wrap { try Keystore.open(at: url, password: pw, now: SMS.now()) }
    }
}

enum SMS {
    /// The clock; `DOSSIER_SMS_NOW` (ISO 8601) fixes it for reproducible demo data and tests.
    static func now() -> Date {
        if let s = ProcessInfo.processInfo.environment["DOSSIER_SMS_NOW"], let d = ISO8601DateFormatter().date(from: s) { return d }
        return Date()
    }

    static func error(_ e: Error) -> DossierError {
        if let e = e as? DossierError { return e }
        return DossierError("\(e)")
    }

    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw self.error(error) }
    }

    /// The text argument, or standard input without its final line end.
    static func input(_ arg: String?) -> String {
        if let arg { return arg }
        var data = FileHandle.standardInput.readDataToEndOfFile()
        if data.last == 0x0A { data.removeLast(); if data.last == 0x0D { data.removeLast() } }
        return String(decoding: data, as: UTF8.self)
    }

    static func out(_ s: String) { FileHandle.standardOutput.write(Data((s + "\n").utf8)) }

    /// Reads the other person's code unless `later`; returns nil when postponed.
    static func theirCode(later: Bool, name: String) throws -> ContactCode? {
        if later { return nil }
        let text = try SecretInput.read(prompt: "Code shown on \(name)'s phone: ", environment: "DOSSIER_SMS_CODE")
        return try wrap { try ContactCode(parsing: text) }
    }

    static func ownCodeBanner(_ code: ContactCode, name: String) {
        out("Your code for \(name): \(code.formatted)")
        Console.note("Read it to \(name); they enter it in their app. Then enter the code their app shows.")
    }
}

// MARK: - Account

struct SMSInit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create the local account: a new password-protected keystore.",
        discussion: "Example: DOSSIER_SMS_PASSWORD=… dossier sms init --account alice --keystore alice.keystore")
    @OptionGroup var store: KeystoreOptions
    @Option(help: "The account name shown in reports.") var account: String = "me"
    @Option(help: "Seconds the keystore stays locked after 3 wrong passwords.") var lockSeconds: Int = 300

    func validate() throws {
        guard (1...86_400 * 7).contains(lockSeconds) else { throw ValidationError("--lock-seconds must be 1…604800") }
    }

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        let pw = try SecretInput.read(prompt: "New keystore password: ", environment: "DOSSIER_SMS_PASSWORD")
        if env["DOSSIER_SMS_PASSWORD"] == nil && env["DOSSIER_SMS_PASSWORD_FD"] == nil {
            let again = try SecretInput.read(prompt: "Repeat the password: ", environment: "DOSSIER_SMS_PASSWORD")
            guard again == pw else { throw DossierError("the passwords differ; nothing was created") }
        }
        // Test/benchmark hook: a cheaper scrypt cost (the cost is stored in the file).
        var kdf: Keystore.KDFParams?
        if let s = env["DOSSIER_SMS_KDF_LOG2N"], let n = Int(s) {
            kdf = Keystore.KDFParams(log2n: n, r: 8, p: 1, salt: Data((0..<16).map { _ in UInt8.random(in: 0...255) }))
        }
        let url = store.url
        _ = try SMS.wrap { try Keystore.create(at: url, account: account, password: pw, lockSeconds: lockSeconds, kdf: kdf, now: SMS.now()) }
        Console.note("Created keystore \(url.path) for account \(account).")
    }
}

struct SMSPasswd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change the keystore password (FRQ2).",
        discussion: "The new password comes from DOSSIER_SMS_NEW_PASSWORD(_FD) or the terminal.")
    @OptionGroup var store: KeystoreOptions

    func run() async throws {
        var ks = try store.open()
        let pw = try SecretInput.read(prompt: "New password: ", environment: "DOSSIER_SMS_NEW_PASSWORD")
        try SMS.wrap { try ks.changePassword(to: pw, now: SMS.now()) }
        Console.note("Password changed.")
    }
}

// MARK: - Contacts

struct SMSContact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contact", abstract: "Add, edit, remove, resynchronise and list contacts.",
        subcommands: [Add.self, Edit.self, Remove.self, Resync.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a contact: show your code, enter theirs (FRQ10).",
            discussion: """
            Both people run this at the same time. Your code is printed; the code shown on the other phone is read from DOSSIER_SMS_CODE(_FD) or the terminal. With --later the contact stays pending; run `contact add NAME` again to enter their code.

            Example: dossier sms contact add Bob
            """)
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String
        @Flag(help: "Only show your code now; enter theirs later.") var later = false

        func run() async throws {
            var ks = try store.open()
            let name = self.name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.count <= 64 else { throw DossierError("a contact name is 1 to 64 characters") }
            var idx = ks.contacts.firstIndex { $0.name.lowercased() == name.lowercased() }
            if let i = idx, !ks.contacts[i].isPending, !ks.contacts[i].isResyncing {
                throw DossierError("\(ks.contacts[i].name) is already a contact; use `contact resync` to exchange new codes")
            }
            if idx == nil {
                ks.contacts.append(Contact(name: name, ownCode: ContactCode.generate(), now: SMS.now()))
                idx = ks.contacts.count - 1
                try SMS.wrap { try ks.save() }
            }
            let i = idx!
            SMS.ownCodeBanner(ks.contacts[i].ownCode!, name: ks.contacts[i].name)
            guard let theirs = try SMS.theirCode(later: later, name: ks.contacts[i].name) else {
                Console.note("\(ks.contacts[i].name) is pending; run `dossier sms contact add \(ks.contacts[i].name)` again to enter their code.")
                return
            }
            try SMS.wrap { try ks.contacts[i].complete(theirs: theirs, now: SMS.now()); try ks.save() }
            Console.note("\(ks.contacts[i].name) is ready: messages can be exchanged.")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Rename a contact (FRQ11).",
            discussion: "Example: dossier sms contact edit Bob --name \"Bob Smith\"")
        @OptionGroup var store: KeystoreOptions
        @Argument var name: String
        @Option(name: .customLong("name"), help: "The new name.") var newName: String

        func run() async throws {
            var ks = try store.open()
            let i = try SMS.wrap { try ks.contactIndex(name) }
            let n = newName.trimmingCharacters(in: .whitespaces)
            guard !n.isEmpty, n.count <= 64 else { throw DossierError("a contact name is 1 to 64 characters") }
            if ks.contacts.enumerated().contains(where: { $0.offset != i && $0.element.name.lowercased() == n.lowercased() }) {
                throw DossierError("there is already a contact named \(n)")
            }
            ks.contacts[i].name = n
            try SMS.wrap { try ks.save() }
            Console.note("Renamed to \(n).")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a contact and all its keys (FRQ13).",
            discussion: "Example: dossier sms contact rm Bob")
        @OptionGroup var store: KeystoreOptions
        @Argument var name: String

        func run() async throws {
            var ks = try store.open()
            let i = try SMS.wrap { try ks.contactIndex(name) }
            let removed = ks.contacts.remove(at: i)
            try SMS.wrap { try ks.save() }
            Console.note("Removed \(removed.name) and every key kept for them.")
        }
    }

    struct Resync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resync", abstract: "Exchange new codes with a contact; both chains restart (FRQ12).",
            discussion: """
            Both people run it at the same time. Until their new code is entered the old chains keep working.

            Example: dossier sms contact resync Bob
            """)
        @OptionGroup var store: KeystoreOptions
        @Argument var name: String
        @Flag(help: "Only show your new code now; enter theirs later with `contact add NAME`.") var later = false

        func run() async throws {
            var ks = try store.open()
            let i = try SMS.wrap { try ks.contactIndex(name) }
            if !ks.contacts[i].isResyncing && !ks.contacts[i].isPending {
                ks.contacts[i].beginResync(ownCode: ContactCode.generate())
                try SMS.wrap { try ks.save() }
            }
            SMS.ownCodeBanner(ks.contacts[i].ownCode!, name: ks.contacts[i].name)
            guard let theirs = try SMS.theirCode(later: later, name: ks.contacts[i].name) else {
                Console.note("Resynchronisation with \(ks.contacts[i].name) started; run `dossier sms contact add \(ks.contacts[i].name)` to enter their new code.")
                return
            }
            try SMS.wrap { try ks.contacts[i].complete(theirs: theirs, now: SMS.now()); try ks.save() }
            Console.note("Resynchronised with \(ks.contacts[i].name).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List contacts with their message counts (no secrets).")
        @OptionGroup var store: KeystoreOptions

        func run() async throws {
            let ks = try store.open()
            for e in Inventory(ks).contacts {
                SMS.out("\(e.name)\t\(e.status)\tsent \(e.sent)\treceived \(e.received)\tskipped \(e.skippedBacklog)")
            }
        }
    }
}

// MARK: - Messages

struct SMSEncrypt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt", abstract: "Encrypt a message for a contact (FRQ6); prints 160 characters to paste.",
        discussion: """
        The text is the argument or standard input (one final line end dropped): up to 144 septets of the GSM 7-bit alphabet (€ [ ] { } \\ ^ ~ | count 2).

        Example: echo "Meet at 6" | dossier sms encrypt Bob
        """)
    @OptionGroup var store: KeystoreOptions
    @Argument(help: "The contact.") var contact: String
    @Argument(help: "The message (else standard input).") var text: String?

    func run() async throws {
        let plain = SMS.input(text)
        let used = try SMS.wrap { try GSMAlphabet.septetCount(plain) }
        guard used <= SMSProtocol.maxPlainSeptets else {
            throw SMS.error(SecureSMSError.tooLong(septets: used, limit: SMSProtocol.maxPlainSeptets))
        }
        var ks = try store.open()
        let i = try SMS.wrap { try ks.contactIndex(contact) }
        let msg = try SMS.wrap { () throws -> String in
            let m = try ks.contacts[i].encrypt(plain, now: SMS.now())
            try ks.save()
            return m
        }
        SMS.out(msg)
        Console.note("\(used) of \(SMSProtocol.maxPlainSeptets) septets used, \(SMSProtocol.maxPlainSeptets - used) left; message #\(ks.contacts[i].send!.next - 1) to \(ks.contacts[i].name).")
    }
}

struct SMSDecrypt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt", abstract: "Decrypt a pasted message from a contact (FRQ8).",
        discussion: """
        The message is the argument or standard input; spaces and line breaks are ignored. A message that does not verify changes nothing and says so.

        Example: dossier sms decrypt Alice "$PASTED"
        """)
    @OptionGroup var store: KeystoreOptions
    @Argument(help: "The contact.") var contact: String
    @Argument(help: "The pasted message (else standard input).") var message: String?

    func run() async throws {
        let pasted = SMS.input(message)
        var ks = try store.open()
        let i = try SMS.wrap { try ks.contactIndex(contact) }
        let text = try SMS.wrap { () throws -> String in
            let t = try ks.contacts[i].decrypt(pasted, now: SMS.now())
            try ks.save()
            return t
        }
        SMS.out(text)
    }
}

struct SMSCount: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count", abstract: "Show septets used and left for a message (FRQ9); no keystore needed.",
        discussion: "Example: dossier sms count \"Price: €5 [approx]\"   →   20 septets used, 124 left (of 144)")
    @Argument(help: "The message (else standard input).") var text: String?

    func run() async throws {
        let used = try SMS.wrap { try GSMAlphabet.septetCount(SMS.input(text)) }
        let max = SMSProtocol.maxPlainSeptets
        if used > max {
            SMS.out("\(used) septets used, \(used - max) too many (limit \(max))")
            throw ExitCode(1)
        }
        SMS.out("\(used) septets used, \(max - used) left (of \(max))")
    }
}

/// Hidden: the alphabet tables as JSON, for the cross-check against another GSM 03.38 codec.
struct SMSAlphabet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alphabet", abstract: "Print the GSM 03.38 tables and the safe alphabet as JSON.",
        shouldDisplay: false)
    @Flag var json = false

    func run() async throws {
        func hex(_ s: Unicode.Scalar) -> String { String(format: "U+%04X", s.value) }
        var basic: [String] = []
        for (i, s) in GSMAlphabet.basic.enumerated() {
            basic.append("    {\"code\": \(i), \"scalar\": \"\(hex(s))\"}")
        }
        let ext = GSMAlphabet.extensionTable.sorted { $0.key < $1.key }.map { "    {\"code\": \($0.key), \"scalar\": \"\(hex($0.value))\"}" }
        let safe = SafeAlphabet.characters.map { "\"\(hex($0))\"" }
        SMS.out("""
        {
          "basic": [
        \(basic.joined(separator: ",\n"))
          ],
          "extension": [
        \(ext.joined(separator: ",\n"))
          ],
          "escape": 27,
          "safe": [\(safe.joined(separator: ", "))],
          "max_plain_septets": \(SMSProtocol.maxPlainSeptets),
          "message_length": \(SMSProtocol.messageLength)
        }
        """)
    }
}

/// Hidden: times the protocol alone (chain step + seal, parse + open), in process.
struct SMSBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Time encrypt/decrypt of the protocol alone (no keystore).", shouldDisplay: false)
    @Option(help: "Messages to encrypt and decrypt.") var count: Int = 1000

    func validate() throws {
        guard (1...1_000_000).contains(count) else { throw ValidationError("--count must be 1…1000000") }
    }

    func run() async throws {
        let t = Date(timeIntervalSince1970: 0)
        let a = ContactCode.generate(), b = ContactCode.generate()
        var alice = Contact(name: "B", ownCode: a, now: t), bob = Contact(name: "A", ownCode: b, now: t)
        try SMS.wrap { try alice.complete(theirs: b, now: t); try bob.complete(theirs: a, now: t) }
        let text = String(repeating: "Benchmark €[]. ", count: 8)
        var messages: [String] = []
        messages.reserveCapacity(count)
        let c0 = ContinuousClock.now
        for _ in 0..<count { messages.append(try SMS.wrap { try alice.encrypt(text, now: t) }) }
        let c1 = ContinuousClock.now
        for m in messages { _ = try SMS.wrap { try bob.decrypt(m, now: t) } }
        let c2 = ContinuousClock.now
        func us(_ d: Duration) -> String {
            let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return String(format: "%.1f", s / Double(count) * 1e6)
        }
        SMS.out("protocol encrypt: \(us(c1 - c0)) µs/message, decrypt: \(us(c2 - c1)) µs/message (\(count) messages)")
    }
}
