import ArgumentParser
import DossierKit
import WebDAV

/// `dossier publish`: upload the built site to a WebDAV folder, sending only changes.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("publish")

    @Argument(help: "The project folder (holds dossier.yml).")
    var project: String = "."

    @Option(name: .customLong("to"), help: "The WebDAV folder URL (https://, or http:// to 127.0.0.1).")
    var target: String

    @OptionGroup var site: SiteFolderOption

    @Option(help: "WebDAV user name (default: $DOSSIER_WEBDAV_USER or the netrc entry).")
    var user: String?

    @Option(help: "A netrc-style file with `machine HOST login USER password PASS`.")
    var netrc: String?

    @OptionGroup var trust: TrustOptions

    @Flag(name: .customLong("dry-run"), help: "List what would be uploaded and deleted; change nothing.")
    var dryRun = false

    @Flag(
        help: """
            Check every file on the server against the site (size and entity tag, content where needed) and repair \
            differences.
            """
    )
    var verify = false

    @Option(help: "Parallel uploads (1–16).")
    var jobs: Int = 4

    @Flag(help: "Log every request (method, URL, status; never credentials) on standard error.")
    var verbose = false

    @Flag(name: .customLong("force-private"), help: "Publish even a private site (one built with per-player data).")
    var forcePrivate = false

    @OptionGroup var quiet: QuietFlag

    @Flag(
        name: .customLong("exceed-privacy-budget"),
        help: "Publish even when the release would take the privacy ledger past its lifetime budget.")
    var exceedPrivacyBudget = false

    func validate() throws {
        guard (1...16).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 16") }
    }

    func run() async throws {
        guard let url = URL(string: target), url.scheme != nil else {
            throw ValidationError("--to must be a URL such as https://dav.example.org/site/")
        }
        let siteURL: URL
        let manifestURL: URL
        let stateFolder: URL
        let ledgerURL: URL
        // A release built from a study database is checked against that database's ledger,
        // found through the project (with --site: the project argument, "." by default).
        var loaded: Project? = nil
        if let given = site.given {
            siteURL = given.folder
            manifestURL = given.manifest
            stateFolder = siteURL.deletingLastPathComponent().appendingPathComponent(".dossier/publish")
            ledgerURL = siteURL.deletingLastPathComponent().appendingPathComponent(PrivacyLedgerHook.fileName)
            loaded = try? Project.load(URL(fileURLWithPath: project))
        } else {
            let p = try Project.load(URL(fileURLWithPath: project))
            loaded = p
            siteURL = p.output
            manifestURL = p.outputManifestURL
            stateFolder = p.stateFolder.appendingPathComponent("publish")
            ledgerURL = p.root.appendingPathComponent(PrivacyLedgerHook.fileName)
        }
        // Not while a build replaces the site's files, and no build while this one sends them
        // (docs/output-manifest.md, "One command at a time"); a dry run reads them too.
        let siteLock = SiteLock.take(siteURL, .read, command: "publish") { Console.note($0) }
        defer { withExtendedLifetime(siteLock) {} }
        try PrivateSite.checkPublishable(site: siteURL, force: forcePrivate)
        let privacy = try PrivacyLedgerHook.prepare(site: siteURL, ledgerURL: ledgerURL, shownLedger: ledgerURL.path,
                                                    allowOverBudget: exceedPrivacyBudget, project: loaded)
        let local = try SiteManifest.load(manifestURL)
        let credentials = try WebDAVLogin.credentials(for: url, user: user, netrc: netrc)
        let log: (@Sendable (String) -> Void)? = verbose ? { @Sendable line in Console.note(line) } : nil
        let client: WebDAVClient
        do {
            client = try WebDAVClient(baseURL: url, credentials: credentials, options: trust.clientOptions, log: log)
        } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
        let publisher = Publisher(client: client, site: siteURL, stateFolder: stateFolder, concurrency: jobs)
        let report: Publisher.Report
        // The release's spend is in the ledger before its first file can be public, so a
        // publish that then fails half-way still counts it (docs/game-privacy.md).
        let spend = PrivacyLedgerHook.Once(privacy)
        do {
            report = try await publisher.run(
                local: local, dryRun: dryRun, verify: verify, beforeWriting: { try spend.record() },
                progress: { [silent = quiet.quiet] line in if !silent { Console.note(line) } })
        } catch {
            if let note = spend.noteAfterFailure { Console.note(note) }
            if let e = error as? WebDAVError { throw DossierError(e.description) }
            throw error
        }
        let plan = report.plan
        let new = plan.uploads.filter { $0.reason == .new }.count
        let changed = plan.uploads.count - new
        if let checked = report.checked, !quiet.quiet || verify {
            print(
                "checked \(checked) file(s) on the server (\(report.fetched) read to compare contents): "
                    + "\(plan.uploads.count + plan.deletes.count) difference(s)"
            )
            if verify {
                for u in plan.uploads.sorted(by: { $0.entry.path < $1.entry.path }) {
                    print("  \(u.reason == .new ? "missing" : "differs") \(u.entry.path)")
                }
                for d in plan.deletes { print("  extra   \(d)") }
            }
        }
        if report.dryRun {
            print(
                "dry run: \(plan.uploads.count) to upload (\(new) new, \(changed) changed), \(plan.deletes.count) to "
                    + "delete, \(plan.unchanged) unchanged"
            )
            for u in plan.uploads.sorted(by: { $0.entry.path < $1.entry.path }) {
                print("  \(u.reason == .new ? "new    " : "changed") \(u.entry.path)")
            }
            for d in plan.deletes { print("  delete  \(d)") }
            return
        }
        var line =
            "published \(client.baseURL.absoluteString): \(report.uploaded) uploaded (\(new) new, \(changed) changed), "
            + "\(report.deleted) deleted, \(plan.unchanged) unchanged"
        if report.resumed > 0 { line += ", \(report.resumed) already in place" }
        line += " in \((report.seconds * 100).rounded() / 100) s (requests: \(report.requests))"
        if !quiet.quiet { print(line) }
        if privacy != nil {
            try spend.record()   // (when the server already held the site: recorded now)
            if !quiet.quiet, let summary = spend.summary { print(summary) }
        }
        if !report.conflicts.isEmpty {
            throw DossierError(
                "\(report.conflicts.count) file(s) changed on the server since the last publish were not overwritten: "
                    + report.conflicts.joined(separator: ", ")
                    + " — they were left as they are. To replace them with the site's files, run `dossier publish "
                    + "--verify`:"
                    + " it also deletes every file in that folder that the site does not have (a colleague's included);"
                    + " `dossier publish --verify --dry-run` lists those first")
        }
    }
}
