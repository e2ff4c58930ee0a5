import ArgumentParser
import DossierKit
import SecureSMS
import TextBasics

/// `dossier sms …`: the SecureSMS tools (keystore, contacts, encrypt, decrypt, count).
struct SMSCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("sms", subcommands: [
        SMSInit.self, SMSPasswd.self, SMSContact.self, SMSEncrypt.self, SMSDecrypt.self, SMSCount.self,
        SMSAlphabet.self, SMSBench.self
    ])
}

// MARK: - Shared options and helpers

struct KeystoreOptions: ParsableArguments {
    @Option(name: .long,
            help: "The keystore file (default: $DOSSIER_SMS_KEYSTORE, else under $XDG_DATA_HOME or $HOME).")
    var keystore: String?

    @Option(help: "Seconds to wait while another `dossier sms` command holds the keystore (0…600).")
    var lockWait: Int = 10

    func validate() throws {
        guard (0...600).contains(lockWait) else { throw ValidationError("--lock-wait must be 0…600") }
    }

    var url: URL { KeystoreLocation.resolve(explicit: keystore, environment: ProcessInfo.processInfo.environment) }

    /// A command that has to wait for another one's lock on the keystore says so on standard
    /// error (`waiting for dossier sms encrypt (pid N) to finish with this keystore …`).
    static func sayWaits() { KeystoreLock.waiting = { Console.note($0) } }

    /// Opens the keystore holding its exclusive lock until the command ends.
    func open() throws -> Keystore {
        Self.sayWaits()
        let url = self.url
        // A locked keystore is reported before asking for a password.
        if let until = (try? Keystore.lockoutState(at: url))?.lockedUntil, until > SMS.now() {
            throw naming(url, SecureSMSError.locked(until: until))
        }
        let pw = try SecretInput.read(prompt: "Keystore password: ", environment: "DOSSIER_SMS_PASSWORD")
        do { return try Keystore.open(at: url, password: pw, now: SMS.now(), lockWait: lockWait) } catch {
            throw naming(url, error)
        }
    }

    /// An error of opening the keystore at `url`, naming the file when its text does not
    /// already (a wrong password or a lock-out: which keystore?).
    func naming(_ url: URL, _ error: Error) -> DossierError {
        let e = SMS.error(error)
        let text = "\(e)"
        return text.contains(url.path) ? e : DossierError(file: url.path, text)
    }
}

extension Keystore {
    /// The index of the contact named `name`; none is a command-line error.
    func index(of name: String) throws -> Int { try SMS.wrap { try contactIndex(name) } }
}

enum SMS {
    /// The clock. Debug builds (tests, demo data) may fix it with `DOSSIER_SMS_NOW`
    /// (ISO 8601); a release build has no such switch, so it cannot lift a lockout.
    static func now() -> Date {
        #if DEBUG
        if let s = ProcessInfo.processInfo.environment["DOSSIER_SMS_NOW"],
           let d = try? Date.ISO8601FormatStyle().parse(s) { return d }
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
        var data = Stdio.readInputToEnd()
        if data.last == 0x0A { data.removeLast(); if data.last == 0x0D { data.removeLast() } }
        return String(decoding: data, as: UTF8.self)
    }

    /// `text`, with `--normalize` applied when asked (the changes are listed on stderr).
    static func normalized(_ text: String, _ normalize: Bool, _ quiet: QuietFlag) -> String {
        guard normalize else { return text }
        let (result, changes) = GSMNormalize.apply(text)
        let n = changes.reduce(0) { $0 + $1.count }
        quiet.note(n == 0 ? "--normalize changed nothing."
                     : "--normalize changed \(n) character\(n == 1 ? "" : "s"): "
                         + changes.map(\.summary).joined(separator: ", "))
        return result
    }

    /// The septets `text` needs. A character outside the GSM alphabet that `--normalize`
    /// would replace (a curly quote, a dash, the ellipsis, a special space) gets the next
    /// step in the message; the character itself is never named (it is part of the text).
    static func septets(_ text: String, normalized: Bool) throws -> Int {
        do { return try GSMAlphabet.septetCount(text) } catch SecureSMSError.notGSM(let p) {
            let nfc = Array(text.nfc.unicodeScalars)
            let fixable = !normalized && p >= 1 && p <= nfc.count && GSMNormalize.table[nfc[p - 1]] != nil
            let next = fixable
                ? "; it is one that --normalize replaces (curly quotes, dashes, the ellipsis, special spaces): "
                    + "run the command again with --normalize"
                : "; replace or remove that character"
            throw DossierError(SecureSMSError.notGSM(position: p).description + next)
        } catch { throw self.error(error) }
    }

    /// Says that a contact's keys come from the contact codes of protocol version 1.
    static func warnLegacy(_ name: String) {
        Console.note("Warning: the keys for \(name) were agreed with read-aloud contact codes; "
                     + "run `dossier sms contact resync \(name)` to agree new keys with X25519.")
    }

    static func out(_ s: String) { Stdio.writeOutput(Data((s + "\n").utf8)) }

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
    /// With -q only the key message and the safety number are printed.
    static func exchange(_ ks: inout Keystore, _ i: Int, key: String?, confirm: String?, later: Bool,
                         quiet: QuietFlag) throws -> Bool {
        let name = ks.contacts[i].name
        quiet.say("Your key message for \(name) (send it to them by SMS):")
        out(ks.contacts[i].ownKeyMessage!)
        if later { return false }
        guard let pasted = try ask(key, prompt: "Paste \(name)'s key message: ", environment: "DOSSIER_SMS_KEY") else {
            quiet.note("When \(name)'s key message arrives, run this command again with --key MESSAGE.")
            return false
        }
        let theirs = try wrap { try KeyExchange.parse(pasted) }
        let number = try wrap { try ks.contacts[i].safetyNumber(theirs: theirs) }
        out("Safety number: \(number)")
        quiet.note("Compare it with the number on \(name)'s phone, by voice or in person — not by SMS.")
        guard let typed = try ask(confirm, prompt: "Type the safety number \(name)'s phone shows: ",
                                  environment: "DOSSIER_SMS_CONFIRM") else {
            quiet.note("Nothing agreed yet: run this command again with --key MESSAGE "
                       + "--confirm \"NUMBER ON \(name.uppercased())'S PHONE\".")
            return false
        }
        try wrap { try ks.contacts[i].complete(theirs: theirs, confirmed: typed, now: now()); try ks.save() }
        return true
    }
}

// MARK: - Account

struct SMSInit: AsyncParsableCommand {
    static let configuration = HelpText.command("sms init")
    @OptionGroup var store: KeystoreOptions
    @Option(help: "The account name shown in reports.") var account: String = "me"
    @Option(help: "Seconds the keystore stays locked after 3 wrong passwords.") var lockSeconds: Int = 300
    @Option(help: "scrypt cost: N = 2^this (10…20; default 17). Lower is faster to unlock and to attack.")
    var kdfLog2n: Int = Keystore.KDFParams.standardLog2n
    @Flag(help: "Accept a password the strength estimator scores below 3 of 4.") var allowWeak = false
    @OptionGroup var quiet: QuietFlag

    func validate() throws {
        guard (1...86_400 * 7).contains(lockSeconds) else { throw ValidationError("--lock-seconds must be 1…604800") }
        guard Keystore.KDFParams.log2nRange.contains(kdfLog2n) else {
            throw ValidationError("--kdf-log2n must be 10…20")
        }
    }

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        let pw = try SecretInput.read(prompt: "New keystore password: ", environment: "DOSSIER_SMS_PASSWORD")
        if !allowWeak { try SMS.wrap { try PasswordPolicy.requireStrong(pw, userInputs: [account]) } }
        if env["DOSSIER_SMS_PASSWORD"] == nil && env["DOSSIER_SMS_PASSWORD_FD"] == nil {
            let again = try SecretInput.read(prompt: "Repeat the password: ", environment: "DOSSIER_SMS_PASSWORD")
            guard again == pw else { throw DossierError("the passwords differ; nothing was created") }
        }
        let kdf = Keystore.KDFParams(log2n: kdfLog2n, r: 8, p: 1,
                                     salt: Data((0..<16).map { _ in UInt8.random(in: 0...255) }))
        let url = store.url
        KeystoreOptions.sayWaits()
        _ = try SMS.wrap {
            try Keystore.create(at: url, account: account, password: pw, lockSeconds: lockSeconds, kdf: kdf,
                                now: SMS.now(),
                                lockWait: store.lockWait)
        }
        quiet.note("Created keystore \(url.path) for account \(account).")
    }
}

struct SMSPasswd: AsyncParsableCommand {
    static let configuration = HelpText.command("sms passwd")
    @OptionGroup var store: KeystoreOptions
    @Option(help: "A new scrypt cost, N = 2^this (10…20); default: keep the keystore's.") var kdfLog2n: Int?
    @Flag(help: "Accept a password the strength estimator scores below 3 of 4.") var allowWeak = false
    @OptionGroup var quiet: QuietFlag

    func validate() throws {
        if let n = kdfLog2n, !Keystore.KDFParams.log2nRange.contains(n) {
            throw ValidationError("--kdf-log2n must be 10…20")
        }
    }

    func run() async throws {
        var ks = try store.open()
        let pw = try SecretInput.read(prompt: "New password: ", environment: "DOSSIER_SMS_NEW_PASSWORD")
        if !allowWeak { try SMS.wrap { try PasswordPolicy.requireStrong(pw, userInputs: [ks.account]) } }
        try SMS.wrap { try ks.changePassword(to: pw, log2n: kdfLog2n, now: SMS.now()) }
        quiet.note("Password changed (scrypt N = 2^\(ks.kdfLog2n)).")
    }
}
