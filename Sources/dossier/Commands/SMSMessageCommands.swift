import ArgumentParser
import DossierKit
import SecureSMS
import TextBasics

// `dossier sms encrypt|decrypt|count|alphabet|bench`: messages (see SMSCommand.swift).

// MARK: - Messages

struct SMSEncrypt: AsyncParsableCommand {
    static let configuration = HelpText.command("sms encrypt")
    @OptionGroup var store: KeystoreOptions
    @Argument(help: "The contact.") var contact: String
    @Argument(help: "The message (else standard input).") var text: String?
    @Flag(help: "Map curly quotes, dashes, the ellipsis and special spaces to GSM characters, and list what changed.")
    var normalize = false
    @OptionGroup var quiet: QuietFlag

    func run() async throws {
        let plain = SMS.normalized(SMS.input(text), normalize, quiet)
        let used = try SMS.septets(plain, normalized: normalize)
        guard used <= SMSProtocol.maxPlainSeptets else {
            throw SMS.error(SecureSMSError.tooLong(septets: used, limit: SMSProtocol.maxPlainSeptets))
        }
        var ks = try store.open()
        let i = try ks.index(of: contact)
        if ks.contacts[i].usesLegacyCodes {
            SMS.warnLegacy(ks.contacts[i].name)
        }
        let msg = try SMS.wrap { () throws -> String in
            let m = try ks.contacts[i].encrypt(plain, now: SMS.now())
            try ks.save()
            return m
        }
        SMS.out(msg)
        quiet.note(
            "\(used) of \(SMSProtocol.maxPlainSeptets) septets used, \(SMSProtocol.maxPlainSeptets - used) left; "
                + "message #\(ks.contacts[i].send!.next - 1) to \(ks.contacts[i].name)."
        )
    }
}

struct SMSDecrypt: AsyncParsableCommand {
    static let configuration = HelpText.command("sms decrypt")
    @OptionGroup var store: KeystoreOptions
    @Argument(help: "The contact.") var contact: String
    @Argument(help: "The pasted message (else standard input).") var message: String?
    @OptionGroup var quiet: QuietFlag

    func run() async throws {
        let pasted = SMS.input(message)
        var ks = try store.open()
        let i = try ks.index(of: contact)
        let text = try SMS.wrap { () throws -> String in
            let t = try ks.contacts[i].decrypt(pasted, now: SMS.now())
            try ks.save()
            return t
        }
        SMS.out(text)
    }
}

struct SMSCount: AsyncParsableCommand {
    static let configuration = HelpText.command("sms count")
    @Argument(help: "The message (else standard input).") var text: String?
    @Flag(help: "Count the message as `encrypt --normalize` would send it.") var normalize = false
    @OptionGroup var quiet: QuietFlag

    func run() async throws {
        let used = try SMS.septets(SMS.normalized(SMS.input(text), normalize, quiet), normalized: normalize)
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
    static let configuration = HelpText.command("sms alphabet", hidden: true)
    @Flag(help: "JSON output (the only format).") var json = false
    @OptionGroup var quiet: QuietFlag

    func run() async throws { SMS.out(AlphabetTables.json()) }
}

/// Hidden: times the protocol alone (chain step + seal, parse + open), in process.
struct SMSBench: AsyncParsableCommand {
    static let configuration = HelpText.command("sms bench", hidden: true)
    @Option(help: "Messages to encrypt and decrypt.") var count: Int = 1000
    @OptionGroup var quiet: QuietFlag

    func validate() throws {
        guard (1...1_000_000).contains(count) else { throw ValidationError("--count must be 1…1000000") }
    }

    func run() async throws {
        let t = Date(timeIntervalSince1970: 0)
        var alice = Contact(name: "B", now: t), bob = Contact(name: "A", now: t)
        let a = alice.ownPublicKey!, b = bob.ownPublicKey!
        let number = KeyExchange.safetyNumber(a, b)
        try SMS.wrap {
            try alice.complete(theirs: b, confirmed: number, now: t);
            try bob.complete(theirs: a, confirmed: number, now: t)
        }
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
            return cFormat("%.1f", s / Double(count) * 1e6)
        }
        SMS.out("protocol encrypt: \(us(c1 - c0)) µs/message, decrypt: \(us(c2 - c1)) µs/message (\(count) messages)")
    }
}
