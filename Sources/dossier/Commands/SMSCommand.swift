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
        Two people add each other as contacts (each sends a key message, both compare a safety number), then paste 160-character messages through any messaging app. See docs/securesms-cli.md.

        Example:
          dossier sms init --account alice
          dossier sms contact add Bob          # prints your key message; paste Bob's; compare the safety number
          echo "See you at 6" | dossier sms encrypt Bob
          dossier sms decrypt Bob "$PASTED"

        Secrets are never taken from arguments: the password comes from DOSSIER_SMS_PASSWORD, DOSSIER_SMS_PASSWORD_FD or the terminal. The keystore is --keystore, else DOSSIER_SMS_KEYSTORE, else $XDG_DATA_HOME/dossier/sms.keystore when XDG_DATA_HOME is set (and ~/.dossier/sms.keystore does not exist), else $HOME/.dossier/sms.keystore.
        """,
        subcommands: [SMSInit.self, SMSPasswd.self, SMSContact.self, SMSEncrypt.self, SMSDecrypt.self,
                      SMSCount.self, SMSAlphabet.self, SMSBench.self]
    )
}

// MARK: - Shared options and helpers

struct KeystoreOptions: ParsableArguments {
    @Option(name: .long, help: "The keystore file (default: $DOSSIER_SMS_KEYSTORE, else under $XDG_DATA_HOME or $HOME).")
    var keystore: String?

    @Option(help: "Seconds to wait while another `dossier sms` command holds the keystore (0…600).")
    var lockWait: Int = 10

    func validate() throws {
        guard (0...600).contains(lockWait) else { throw ValidationError("--lock-wait must be 0…600") }
    }

    var url: URL { KeystoreLocation.resolve(explicit: keystore, environment: ProcessInfo.processInfo.environment) }

    /// Opens the keystore holding its exclusive lock until the command ends.
    func open() throws -> Keystore {
        let url = self.url
        // A locked keystore is reported before asking for a password.
        if let until = (try? Keystore.lockoutState(at: url))?.lockedUntil, until > SMS.now() {
            throw SMS.error(SecureSMSError.locked(until: until))
        }
        let pw = try SecretInput.read(prompt: "Keystore password: ", environment: "DOSSIER_SMS_PASSWORD")
        return try SMS.wrap { try Keystore.open(at: url, password: pw, now: SMS.now(), lockWait: lockWait) }
    }
}

enum SMS {
    /// The clock. Debug builds (tests, demo data) may fix it with `DOSSIER_SMS_NOW`
    /// (ISO 8601); a release build has no such switch, so it cannot lift a lockout.
    static func now() -> Date {
        #if DEBUG
        if let s = ProcessInfo.processInfo.environment["DOSSIER_SMS_NOW"], let d = ISO8601DateFormatter().date(from: s) { return d }
        #endif
        return Date()
    }

    static func error(_ e: Error) -> DossierError {
        if let e = e as? DossierError { return e }
        return DossierError("\(e)")
    }

    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw self.error(error) }
    }

    /// The text argument, or standard input without its final line end. On a terminal it
    /// first says how to end the input.
    static func input(_ arg: String?, what: String = "message") -> String {
        if let arg { return arg }
        if isatty(0) == 1 {
            Console.note("Type or paste the \(what), then press Ctrl-D on a new line to finish (Ctrl-C cancels).")
        }
        var data = FileHandle.standardInput.readDataToEndOfFile()
        if data.last == 0x0A { data.removeLast(); if data.last == 0x0D { data.removeLast() } }
        return String(decoding: data, as: UTF8.self)
    }

    /// `text`, with `--normalize` applied when asked (the changes are listed on stderr).
    static func normalized(_ text: String, _ normalize: Bool) -> String {
        guard normalize else { return text }
        let (result, changes) = GSMNormalize.apply(text)
        let n = changes.reduce(0) { $0 + $1.count }
        Console.note(n == 0 ? "--normalize changed nothing."
                     : "--normalize changed \(n) character\(n == 1 ? "" : "s"): " + changes.map(\.summary).joined(separator: ", "))
        return result
    }

    /// Says that a contact's keys come from the contact codes of protocol version 1.
    static func warnLegacy(_ name: String) {
        Console.note("Warning: the keys for \(name) were agreed with read-aloud contact codes; run `dossier sms contact resync \(name)` to agree new keys with X25519.")
    }

    static func out(_ s: String) { FileHandle.standardOutput.write(Data((s + "\n").utf8)) }

    /// A value from an option, else `environment`(`_FD`), else the terminal; nil when
    /// none of them is available.
    static func ask(_ option: String?, prompt: String, environment: String) throws -> String? {
        if let option { return option }
        let env = ProcessInfo.processInfo.environment
        guard env[environment] != nil || env[environment + "_FD"] != nil || hasTerminal() else { return nil }
        return try SecretInput.read(prompt: prompt, environment: environment)
    }

    static func hasTerminal() -> Bool {
        let fd = Glibc.open("/dev/tty", O_RDWR)
        guard fd >= 0 else { return false }
        Glibc.close(fd)
        return true
    }

    /// The rest of `contact add` / `contact resync` once an exchange is open: print the own
    /// key message, read theirs, show the safety number, and agree the chains only when
    /// the number read from their phone is the same. Returns whether the chains were agreed.
    static func exchange(_ ks: inout Keystore, _ i: Int, key: String?, confirm: String?, later: Bool) throws -> Bool {
        let name = ks.contacts[i].name
        out("Your key message for \(name) (send it to them by SMS):")
        out(ks.contacts[i].ownKeyMessage!)
        if later { return false }
        guard let pasted = try ask(key, prompt: "Paste \(name)'s key message: ", environment: "DOSSIER_SMS_KEY") else {
            Console.note("When \(name)'s key message arrives, run this command again with --key MESSAGE.")
            return false
        }
        let theirs = try wrap { try KeyExchange.parse(pasted) }
        let number = try wrap { try ks.contacts[i].safetyNumber(theirs: theirs) }
        out("Safety number: \(number)")
        Console.note("Compare it with the number on \(name)'s phone, by voice or in person — not by SMS.")
        guard let typed = try ask(confirm, prompt: "Type the safety number \(name)'s phone shows: ", environment: "DOSSIER_SMS_CONFIRM") else {
            Console.note("Nothing agreed yet: run this command again with --key MESSAGE --confirm \"NUMBER ON \(name.uppercased())'S PHONE\".")
            return false
        }
        try wrap { try ks.contacts[i].complete(theirs: theirs, confirmed: typed, now: now()); try ks.save() }
        return true
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
    @Option(help: "scrypt cost: N = 2^this (10…20; default 17). Lower is faster to unlock and to attack.")
    var kdfLog2n: Int = Keystore.KDFParams.standardLog2n
    @Flag(help: "Accept a password the strength estimator scores below 3 of 4.") var allowWeak = false

    func validate() throws {
        guard (1...86_400 * 7).contains(lockSeconds) else { throw ValidationError("--lock-seconds must be 1…604800") }
        guard Keystore.KDFParams.log2nRange.contains(kdfLog2n) else { throw ValidationError("--kdf-log2n must be 10…20") }
    }

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        let pw = try SecretInput.read(prompt: "New keystore password: ", environment: "DOSSIER_SMS_PASSWORD")
        if !allowWeak { try SMS.wrap { try PasswordPolicy.requireStrong(pw, userInputs: [account]) } }
        if env["DOSSIER_SMS_PASSWORD"] == nil && env["DOSSIER_SMS_PASSWORD_FD"] == nil {
            let again = try SecretInput.read(prompt: "Repeat the password: ", environment: "DOSSIER_SMS_PASSWORD")
            guard again == pw else { throw DossierError("the passwords differ; nothing was created") }
        }
        let kdf = Keystore.KDFParams(log2n: kdfLog2n, r: 8, p: 1, salt: Data((0..<16).map { _ in UInt8.random(in: 0...255) }))
        let url = store.url
        _ = try SMS.wrap {
            try Keystore.create(at: url, account: account, password: pw, lockSeconds: lockSeconds, kdf: kdf, now: SMS.now(),
                                lockWait: store.lockWait)
        }
        Console.note("Created keystore \(url.path) for account \(account).")
    }
}

struct SMSPasswd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change the keystore password (FRQ2).",
        discussion: "The new password comes from DOSSIER_SMS_NEW_PASSWORD(_FD) or the terminal. The scrypt cost stays as it is unless --kdf-log2n is given.")
    @OptionGroup var store: KeystoreOptions
    @Option(help: "A new scrypt cost, N = 2^this (10…20); default: keep the keystore's.") var kdfLog2n: Int?
    @Flag(help: "Accept a password the strength estimator scores below 3 of 4.") var allowWeak = false

    func validate() throws {
        if let n = kdfLog2n, !Keystore.KDFParams.log2nRange.contains(n) { throw ValidationError("--kdf-log2n must be 10…20") }
    }

    func run() async throws {
        var ks = try store.open()
        let pw = try SecretInput.read(prompt: "New password: ", environment: "DOSSIER_SMS_NEW_PASSWORD")
        if !allowWeak { try SMS.wrap { try PasswordPolicy.requireStrong(pw, userInputs: [ks.account]) } }
        try SMS.wrap { try ks.changePassword(to: pw, log2n: kdfLog2n, now: SMS.now()) }
        Console.note("Password changed (scrypt N = 2^\(ks.kdfLog2n)).")
    }
}

// MARK: - Contacts

struct SMSContact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contact", abstract: "Add, edit, remove, resynchronise and list contacts.",
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
            commandName: "add", abstract: "Add a contact: exchange key messages, compare the safety number (FRQ10).",
            discussion: """
            Prints your key message (send it to the contact by SMS), reads theirs (--key, DOSSIER_SMS_KEY or the terminal), prints the safety number, and agrees the keys only when the number typed from their phone (--confirm, DOSSIER_SMS_CONFIRM or the terminal) is the same. Run it again to continue an unfinished exchange: your key message stays the same until the exchange completes.

            Example: dossier sms contact add Bob --key "$BOBS_KEY_MESSAGE" --confirm "12345 67890 …"
            """)
        @OptionGroup var store: KeystoreOptions
        @Argument(help: "The contact's name.") var name: String
        @OptionGroup var exchange: ExchangeOptions

        func run() async throws {
            var ks = try store.open()
            let name = self.name.trimmingCharacters(in: .whitespaces)
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
                Console.note("Contact codes are no longer used: \(ks.contacts[i].name)'s exchange starts again with key messages.")
                ks.contacts[i].beginExchange()
                try SMS.wrap { try ks.save() }
            }
            let resync = ks.contacts[i].isResyncing
            if try SMS.exchange(&ks, i, key: exchange.key, confirm: exchange.confirm, later: exchange.later) {
                Console.note(resync ? "Resynchronised with \(ks.contacts[i].name)." : "\(ks.contacts[i].name) is ready: messages can be exchanged.")
            } else {
                Console.note("\(ks.contacts[i].name) is pending.")
            }
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
            commandName: "resync", abstract: "Agree new keys with a contact by a fresh exchange; both chains restart (FRQ12).",
            discussion: """
            Both people run it: a new key pair on each side, new key messages, a new safety number to compare. Until it completes the old chains keep working. After it completes, a copy of the keystore stolen before the resync no longer reads new messages.

            Example: dossier sms contact resync Bob --key "$BOBS_NEW_KEY_MESSAGE" --confirm "…"
            """)
        @OptionGroup var store: KeystoreOptions
        @Argument var name: String
        @OptionGroup var exchange: ExchangeOptions

        func run() async throws {
            var ks = try store.open()
            let i = try SMS.wrap { try ks.contactIndex(name) }
            if !ks.contacts[i].hasOpenExchange {
                ks.contacts[i].beginExchange()
                try SMS.wrap { try ks.save() }
            }
            if try SMS.exchange(&ks, i, key: exchange.key, confirm: exchange.confirm, later: exchange.later) {
                Console.note("Resynchronised with \(ks.contacts[i].name).")
            } else {
                Console.note("Resynchronisation with \(ks.contacts[i].name) started; the old keys work until it completes.")
            }
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
            for c in ks.contacts where c.usesLegacyCodes {
                SMS.warnLegacy(c.name)
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
    @Flag(help: "Map curly quotes, dashes, the ellipsis and special spaces to GSM characters, and list what changed.")
    var normalize = false

    func run() async throws {
        let plain = SMS.normalized(SMS.input(text), normalize)
        let used = try SMS.wrap { try GSMAlphabet.septetCount(plain) }
        guard used <= SMSProtocol.maxPlainSeptets else {
            throw SMS.error(SecureSMSError.tooLong(septets: used, limit: SMSProtocol.maxPlainSeptets))
        }
        var ks = try store.open()
        let i = try SMS.wrap { try ks.contactIndex(contact) }
        if ks.contacts[i].usesLegacyCodes {
            SMS.warnLegacy(ks.contacts[i].name)
        }
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
    @Flag(help: "Count the message as `encrypt --normalize` would send it.") var normalize = false

    func run() async throws {
        let used = try SMS.wrap { try GSMAlphabet.septetCount(SMS.normalized(SMS.input(text), normalize)) }
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

    func run() async throws { SMS.out(AlphabetTables.json()) }
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
        var alice = Contact(name: "B", now: t), bob = Contact(name: "A", now: t)
        let a = alice.ownPublicKey!, b = bob.ownPublicKey!
        let number = KeyExchange.safetyNumber(a, b)
        try SMS.wrap { try alice.complete(theirs: b, confirmed: number, now: t); try bob.complete(theirs: a, confirmed: number, now: t) }
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
