// Compiled only with the vault domain (Package.swift excludes VaultCommand.swift otherwise).
#if DOMAIN_VAULT
import ArgumentParser
import DossierKit
import Vault
import TextBasics

// MARK: - import / report / score

struct VaultImportCommand: ParsableCommand {
    static let configuration = HelpText.command("vault import")
    @Argument(help: "The vault file.") var file: String
    @Argument(help: "The export file or KDBX database.") var export: String
    @Option(help: "A file whose first line is the KDBX database's password.") var importPasswordFile: String?
    @Option(help: "The KDBX database's key file.") var keyFile: String?
    @OptionGroup var quiet: QuietFlag

    func credentials() throws -> KDBXReader.Credentials {
        var password: String
        if let importPasswordFile {
            guard let text = try? String(contentsOfFile: importPasswordFile, encoding: .utf8) else {
                throw DossierError(file: importPasswordFile, "cannot read the password file")
            }
            password = String(text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
        } else {
            password = try SecretInput.read(prompt: "Password of \(URL(fileURLWithPath: export).lastPathComponent): ",
                                            environment: "DOSSIER_IMPORT_PASSWORD")
        }
        var key: Data? = nil
        if let keyFile {
            guard let d = FileManager.default.contents(atPath: keyFile) else {
                throw DossierError(file: keyFile, "cannot read the key file")
            }
            key = d
        }
        if password.isEmpty && key == nil {
            throw DossierError(file: export, "the KeePass database's password is empty and no --key-file is given")
        }
        return KDBXReader.Credentials(password: password.isEmpty && key != nil ? nil : Secret(password), keyFile: key)
    }

    func run() throws {
        let url = URL(fileURLWithPath: export)
        let isKDBX = FileManager.default.contents(atPath: export).map(Importer.isKDBX) ?? false
        // the database is read before the vault is opened: nothing is written if it fails
        let r = try VaultCLI.wrap { try Importer.read(url: url, credentials: isKDBX ? try credentials() : nil) }
        var v = try VaultCLI.open(file, quiet: quiet.quiet)
        let report = v.merge(items: r.items)
        try VaultCLI.wrap { try v.save() }
        quiet.say("\(r.format.rawValue): imported \(report.added.count) new, \(report.updated.count) updated")
        for (type, n) in r.skipped.sorted(by: { $0.key < $1.key }) {
            quiet.keep("skipped \(n) \(type) item(s): \(ImportResult.skipReason(type))")
        }
        for (kind, n) in r.notKept.sorted(by: { $0.key < $1.key }) { quiet.keep("not kept: \(n) \(kind)") }
        for a in r.attachments { quiet.keep("attachment not kept: \(a)") }
        for w in r.warnings { Stdio.writeError(Data("warning: \(w.description)\n".utf8)) }
    }
}

struct VaultExportCommand: ParsableCommand {
    static let configuration = HelpText.command("vault export")
    @Argument(help: "The vault file.") var file: String
    @Option(help: "bitwarden-json or keepass-xml.") var format: String
    @Option(help: "The file to write (must not exist), or - for standard output.") var output: String
    @Flag(help: "Confirm without asking (scripts).") var yes = false
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        guard let fmt = Exporter.Format(rawValue: format) else {
            throw ValidationError("--format must be bitwarden-json or keepass-xml")
        }
        if output != "-" && FileManager.default.fileExists(atPath: output) {
            throw DossierError(file: output, "already exists; not overwritten")
        }
        let v = try VaultCLI.open(file, quiet: quiet.quiet)
        if !yes {
            let where_ = output == "-" ? "standard output" : output
            let answer = try VaultCLI.askTerminal("Write \(v.items.count) items UNENCRYPTED to \(where_)? Type yes: ")
            guard answer.trimmingWhitespace().lowercased() == "yes" else {
                throw DossierError("export cancelled; nothing written")
            }
        }
        let data = try VaultCLI.wrap { try Exporter.export(v.items, as: fmt) }
        for (kind, n) in Exporter.notWritten(v.items, as: fmt).sorted(by: { $0.key < $1.key }) {
            Stdio.writeError(Data("not written (\(fmt.rawValue) has no place for it): \(kind) of \(n) item(s)\n".utf8))
        }
        if output == "-" { Stdio.writeOutput(data); return }
        try AtomicFile.write(data, to: URL(fileURLWithPath: output), mode: 0o600)
        quiet.note("wrote \(v.items.count) items to \(output) (unencrypted: delete it after use)")
    }
}

struct VaultReportCommand: ParsableCommand {
    static let configuration = HelpText.command("vault report")
    @Argument(help: "The vault file (or an export file, with --export).") var file: String
    @Flag(help: "The file is an export (Bitwarden, KeePass, …), not a vault.") var export = false
    @Option(help: "Report date YYYY-MM-DD (default: today).") var asOf: String?
    @Option(help: "A password older than this many days is stale (1–36500).") var staleDays = HealthCheck.staleDays
    @Option(help: "An entry expiring within this many days is \"expiring\" (0–3650).")
    var expiringDays = HealthCheck.expiringDays
    @Flag(help: "Do not flag logins (username and website) that have no TOTP.") var noMissingTotp = false
    @Option(help: "An offline Pwned Passwords file (SHA-1 HASH:COUNT lines ordered by hash) or range folder.")
    var pwned: String?
    @Flag(help: "JSON instead of a summary.") var json = false
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let items = export
            ? try VaultCLI.wrap { try Importer.read(url: URL(fileURLWithPath: file)).items }
            : try VaultCLI.open(file, quiet: quiet.quiet).items
        guard (1...36_500).contains(staleDays) else { throw ValidationError("--stale-days must be 1…36500") }
        guard (0...3650).contains(expiringDays) else { throw ValidationError("--expiring-days must be 0…3650") }
        let options = HealthCheck.Options(staleDays: staleDays, expiringDays: expiringDays, missingTOTP: !noMissingTotp)
        var date = Date()
        if let asOf {
            guard let d = CalendarDay.parse(asOf) else {
                throw DossierError("--as-of must be a real day YYYY-MM-DD, got '\(asOf)'")
            }
            date = d
        }
        let breaches = try pwned.map { p in try VaultCLI.wrap { try BreachList(url: URL(fileURLWithPath: p)) } }
        let r = try VaultCLI.wrap { try HealthCheck.report(items: items, asOf: date, options: options,
                                                           breaches: breaches) }
        if let b = breaches, !quiet.quiet {
            // the cost of the offline check, on stderr (no hash, no password)
            let ms = Double(b.lookupTime.components.seconds) * 1000 + Double(b.lookupTime.components.attoseconds) / 1e15
            Stdio.writeError(Data(cFormat("offline breach check: %d lookups, %d pages of 4 KiB read in %.1f ms\n",
                                                       b.lookups, b.pagesRead, ms).utf8))
        }
        if json { try VaultCLI.printJSON(r); return }
        let c = r.counts
        print("entries \(c.entries), notes \(c.notes), websites \(c.websites), usernames \(c.usernames)")
        print("weak \(c.weak), reused \(c.reusedEntries) in \(c.reuseGroups) groups, http \(c.insecureWebsites), "
            + "stale \(c.stale), duplicates \(c.duplicates)")
        print("expired \(c.expired), expiring \(c.expiring), without TOTP \(c.missingTOTP)"
            + (c.excluded > 0 ? ", \(c.excluded) excluded from reports" : ""))
        if let b = breaches { print("breached \(r.counts.breached) (offline Pwned Passwords list: \(b.form.summary))") }
        print("critical \(c.critical), high \(c.high), medium \(c.medium), low \(c.low), ok \(c.ok)")
        for row in r.problems {
            print("\(row.severity)\t\(row.title)\t\(row.website)\t\(row.username)\tscore \(row.score)\t\(row.reason)")
        }
    }
}

/// Hidden: scores passwords read one per line from standard input (for the zxcvbn
/// agreement test and the benchmark), printing one JSON object per line.
struct VaultScoreCommand: ParsableCommand {
    static let configuration = HelpText.command("vault score", hidden: true)
    @Flag(help: "Read passwords, one per line, from standard input.") var stdin = false
    @Flag(help: "JSON lines: score, guesses_log10.") var json = false
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        guard stdin else { throw ValidationError("use --stdin (passwords are never taken from arguments)") }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        struct Line: Encodable { let score: Int; let guesses_log10: Double }
        var out = ""
        while let line = readLine(strippingNewline: true) {
            let e = Strength.estimate(line)
            if json {
                out += String(decoding: try enc.encode(Line(score: e.score, guesses_log10: e.guessesLog10)),
                              as: UTF8.self) + "\n"
            } else {
                out += "\(e.score)\n"
            }
            if out.utf8.count > 65536 { print(out, terminator: ""); out = "" }
        }
        print(out, terminator: "")
    }
}

/// Hidden: the generator + estimator benchmark (Benchmarks/vault/run.sh).
struct VaultBenchCommand: ParsableCommand {
    static let configuration = HelpText.command("vault bench", hidden: true)
    @Option(help: "How many passwords.") var count = 100_000
    @OptionGroup var generator: GeneratorOptions
    @Flag(help: "JSON summary.") var json = false
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let next = try generator.make()
        let clock = ContinuousClock()
        var total = Duration.zero
        var worst = Duration.zero
        var scores = [Int](repeating: 0, count: 5)
        _ = Strength.estimate("warm-up")
        for _ in 0..<count {
            let t0 = clock.now
            let pw = next()
            let e = Strength.estimate(pw.reveal)
            let dt = clock.now - t0
            total += dt
            worst = max(worst, dt)
            scores[e.score] += 1
        }
        func ms(_ d: Duration) -> Double {
            Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        }
        let mean = ms(total) / Double(max(count, 1))
        if json {
            struct Out: Encodable {
                let count: Int, length: Int, meanMs: Double, worstMs: Double, scores: [Int]
            }
            try VaultCLI.printJSON(Out(count: count, length: generator.length ?? 20, meanMs: mean,
                                       worstMs: ms(worst), scores: scores))
        } else {
            print(cFormat("%d passwords of length %d: mean %.3f ms, worst %.3f ms per password (generate + score)",
                         count, generator.length ?? 20, mean, ms(worst)))
        }
    }
}
#endif
