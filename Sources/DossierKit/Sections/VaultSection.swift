#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import Vault
import TextBasics

/// The `vault` section: the redacted health report of one password vault.
///
/// ```yaml
/// vault:
///   vault: data/vault/demo.dvault          # an encrypted Dossier vault …
///   password_file: data/vault/demo-password.txt   # … unlocked by this file (demo only!)
///   # password_env: DOSSIER_VAULT_PASSWORD  # … or by this environment variable (default)
///   # import: data/vault/export.csv        # or an unencrypted export instead of a vault
///   as_of: 2026-01-01                      # the report date (default: newest change in the vault)
///   stale_days: 365                        # a password older than this is "stale"
///   expiring_days: 30                      # an entry expiring within this many days is "expiring"
///   missing_totp: true                     # flag logins (username + website) without TOTP
///   pwned_passwords: data/pwned-passwords-sha1-ordered-by-hash.txt   # optional, offline
/// ```
///
/// Every page and side output is built from ``HealthReport``, which has no field that can
/// hold a secret (docs/vault-report.md).
public struct VaultSection: Section {
    public static let key = "vault"
    public static let title = "Vault health"

    let source: URL
    let isImport: Bool
    let passwordFile: URL?
    /// Where `password_file:` is in dossier.yml (for the error when an export has no password).
    let passwordFileLine: Int
    let manifestFile, passwordEnv: String
    let asOf: Date?
    let staleDays: Int
    /// `expiring_days:` and `missing_totp:` with `staleDays` (docs/vault-report.md).
    let options: HealthCheck.Options
    /// An offline Pwned Passwords file or range folder (`pwned_passwords:`).
    let pwned: URL?
    let display: String
    /// The vault unlocked by ``units()`` (every build, cached or not: a wrong password
    /// fails the build even when the report itself is reused), handed on to ``build``.
    let unlocked = UnlockedItems()
    /// The vault file as ``units()`` found it before unlocking it.
    let readEarly = EarlyReadStamps()
    public var inputStampsReadEarly: [String: String] { readEarly.all }

    public init(config: SectionConfig, project: Project) throws {
        if let name = try config.string("vault"), !FileManager.default.fileExists(atPath: config.resolve(name).path) {
            // Built before the vault was made (`dossier new --with vault` says to make it first).
            let dir = PathText.deletingLastComponent(config.file)   // as seen from where dossier started
            let shown = name.hasPrefix("/") || dir.isEmpty ? name : dir + "/" + name
            throw config.error("vault", "file not found: \(name); create the vault with `dossier vault init \(shown)` "
                               + "(or name an existing vault file), then build again")
        }
        let vault = try config.path("vault", required: false)
        let imp = try config.path("import", required: false)
        switch (vault, imp) {
        case (let v?, nil): source = v; isImport = false
        case (nil, let i?): source = i; isImport = true
        case (nil, nil): throw config.error(nil, "name a vault file ('vault:') or an export file ('import:')")
        default: throw config.error("import", "give either 'vault' or 'import', not both")
        }
        passwordFile = try config.path("password_file", required: false)
        passwordFileLine = config.line("password_file")
        manifestFile = config.file
        passwordEnv = try config.string("password_env") ?? "DOSSIER_VAULT_PASSWORD"
        if let s = try config.string("as_of") {
            guard let d = CalendarDay.parse(s) else {
                throw config.error("as_of", "expected a real day YYYY-MM-DD, got '\(s)'")
            }
            asOf = d
        } else {
            asOf = nil
        }
        pwned = try config.path("pwned_passwords", required: false)
        staleDays = try config.int("stale_days", default: HealthCheck.staleDays, range: 1...36_500)
            ?? HealthCheck.staleDays
        options = HealthCheck.Options(
            staleDays: staleDays,
            expiringDays: try config.int("expiring_days", default: HealthCheck.expiringDays, range: 0...3650)
                ?? HealthCheck.expiringDays,
            missingTOTP: try config.bool("missing_totp", default: true))
        let rootPath = project.root.standardizedFileURL.path + "/"
        let full = source.standardizedFileURL.path
        display = full.hasPrefix(rootPath) ? String(full.dropFirst(rootPath.count)) : source.lastPathComponent
    }

    /// The breach list by path, size and modification time (it can be tens of GB: its
    /// bytes are not hashed into the unit key).
    var pwnedStamp: String {
        guard let pwned else { return "" }
        let a = try? FileManager.default.attributesOfItem(atPath: pwned.path)
        let size = a == nil ? -1 : FolderWalk.size(atPath: pwned.path) ?? -1
        let mtime = (a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
        return "\(pwned.path)|\(size)|\(mtime)"
    }

    public func units() throws -> [SectionUnit] {
        if !isImport {
            readEarly.stamp(source.path)
            unlocked.set(try loadItems())
        }
        var unit = SectionUnit(id: "vault", inputs: [source] + (passwordFile.map { [$0] } ?? []),
                               salt: "\(isImport)|\(passwordEnv)|\(asOf?.timeIntervalSince1970 ?? -1)|\(staleDays)|"
                                   + "\(options.expiringDays)|\(options.missingTOTP)|\(pwnedStamp)")
        unit.secretPaths = passwordFile.map { [$0.path] } ?? []     // (its hash would test password guesses)
        return [unit]
    }

    // MARK: Build

    struct Record: Codable {
        var report: HealthReport
        var source: String
        var format: String
        var skipped: [String: Int]
        /// Data inside imported items the vault does not keep (`import:` only), by kind.
        var notKept: [String: Int]? = nil
    }

    func loadItems() throws -> UnlockedItems.Loaded {
        do {
            if isImport {
                // A KeePass database is opened with the password (password_file, else
                // password_env or the terminal); any other export has none to use.
                let data = (try? Data(contentsOf: source)) ?? Data()
                var credentials: KDBXReader.Credentials? = nil
                if Importer.isKDBX(data) {
                    credentials = KDBXReader.Credentials(
                        password: Secret(try password(for: "the KeePass database \(display)")))
                } else if passwordFile != nil {
                    throw DossierError(file: manifestFile, line: passwordFileLine,
                                       "vault.password_file: \(display) is an unencrypted export with no password to "
                                        + "use; remove password_file (only a vault file or a KeePass .kdbx database "
                                        + "needs one)")
                }
                let r = try Importer.read(url: source, now: asOf ?? Date(timeIntervalSince1970: 0),
                                          credentials: credentials)
                return (r.items, r.format.rawValue, r.skipped, r.notKept)
            }
            let v = try Vault.open(url: source, password: Secret(try password(for: display)))
            return (v.items, "dossier-vault", [:], [:])
        } catch let e as VaultError {
            throw DossierError(file: e.file.map { _ in display } ?? display, line: e.line, column: e.column, e.message)
        }
    }

    /// The password: the first line of `password_file`, else `password_env` or the terminal.
    func password(for what: String) throws -> String {
        if let passwordFile {
            guard let text = try? String(contentsOf: passwordFile, encoding: .utf8) else {
                throw DossierError(file: passwordFile.path, "the password file cannot be read as UTF-8 text")
            }
            let password = String(text.split(whereSeparator: \.isNewline).first ?? "")
            guard !password.isEmpty else { throw DossierError(file: passwordFile.path, "the password file is empty") }
            return password
        }
        return try SecretInput.read(prompt: "Master password for \(what): ", environment: passwordEnv)
    }

    func wrapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as VaultError {
            throw DossierError(file: e.file ?? display, line: e.line, column: e.column, e.message)
        }
    }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult {
        let (items, format, skipped, notKept) = try unlocked.take() ?? loadItems()
        let date = asOf ?? items.map(\.modified).max() ?? Date(timeIntervalSince1970: 0)
        let breaches = try pwned.map { url in try wrapped { try BreachList(url: url) } }
        let report = try wrapped { try HealthCheck.report(items: items, asOf: date, options: options,
                                                          breaches: breaches) }
        var csv = CSVWriter(header: HealthReport.csvColumns)
        for r in report.entries {
            csv.append([.text(r.title), .text(r.website), .text(r.username), CSVWriter.number(r.score),
                        .text(r.severity), .text(r.reason), .text(r.group), .text(r.changed), .text(r.expires)])
        }
        let json = try Self.encoder().encode(report)
        var warnings: [Diagnostic] = []
        for (type, n) in skipped.sorted(by: { $0.key < $1.key }) {
            warnings.append(.warning(file: display,
                                     "\(n) \(type) item(s) not imported: \(ImportResult.skipReason(type))"))
        }
        for (kind, n) in notKept.sorted(by: { $0.key < $1.key }) {
            warnings.append(.warning(file: display, "not kept: \(n) \(kind) (docs/vault-import.md)"))
        }
        let record = try Self.encoder().encode(Record(report: report, source: display, format: format, skipped: skipped,
                                                                   notKept: notKept.isEmpty ? nil : notKept))
        return UnitResult(files: [OutputFile(path: "vault/health.csv", data: csv.data),
                                  OutputFile(path: "vault/health.json", data: json)],
                          record: record, warnings: warnings)
    }

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return e
    }

    // MARK: Summary page

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult {
        guard let data = try records.first?.data else { return UnitResult() }
        let record = try JSONDecoder().decode(Record.self, from: data)
        let report = record.report
        let labels = ["0 too guessable", "1 very guessable", "2 somewhat guessable", "3 safely unguessable",
                      "4 very unguessable"]
        let chart = Charts.bar(categories: labels,
                               series: [BarSeries(name: "Entries", values: report.scoreDistribution.map(Double.init))],
                               options: ChartOptions(title: "Password strength",
                                                     description: "Number of entries at each zxcvbn strength "
                                                        + "score, 0 (weakest) to 4."))
        let counts = report.counts
        let model = VaultPageModel(
            asOf: ValueFormat.date(report.asOf), source: record.source, format: record.format, counts: counts,
            breachList: pwned == nil ? nil : report.breachList ?? "",
            averageLength: cFormat("%.1f", report.averageLength),
            chart: chart,
            distribution: report.scoreDistribution.enumerated().map { .init(label: labels[$0.offset],
                    count: $0.element) },
            problems: report.problems.map(VaultPageModel.Row.init),
            expiry: (report.expired + report.expiring).map(VaultPageModel.Row.init),
            reused: report.reused.map(VaultPageModel.Row.init),
            expiringDays: options.expiringDays, checksTOTP: options.missingTOTP,
            notKept: (record.notKept ?? [:]).sorted { $0.key < $1.key }.map { .init(kind: $0.key, count: $0.value) },
            skipped: record.skipped.sorted { $0.key < $1.key }.map {
                .init(type: $0.key, count: $0.value, reason: ImportResult.skipReason($0.key))
            })
        let page = Page(path: "vault/index.html", title: "Vault health", template: "vault/index", model: model)
        let blurb = "\(counts.entries) entries and \(counts.notes) notes: \(counts.critical) critical, "
            + "\(counts.high) high, \(counts.medium) medium, \(counts.low) low."
        return UnitResult(pages: [page], blurb: blurb)
    }
}

/// The items one build's ``VaultSection/units()`` unlocked, taken once by ``VaultSection/build``.
final class UnlockedItems: @unchecked Sendable {
    typealias Loaded = (items: [VaultItem], format: String, skipped: [String: Int], notKept: [String: Int])
    private let lock = PlainLock()
    private var value: Loaded?

    func set(_ v: Loaded) { lock.lock(); value = v; lock.unlock() }

    /// The items, once; nil when none are held.
    func take() -> Loaded? {
        lock.lock(); defer { lock.unlock() }
        let v = value
        value = nil
        return v
    }
}
