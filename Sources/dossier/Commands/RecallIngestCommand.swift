#if DOMAIN_RECALL
import ArgumentParser
import _CryptoExtras
import DossierKit
import RecallStudy
import Sealing
import StudyStore
import WebDAV

// Its option declarations look like `vault import`'s (`duplicates` pairs them): each
// command's own options, with nothing to share but ArgumentParser's form.

/// `dossier recall ingest`: opens the kit's sealed uploads from a drop and stores each log
/// in the study's logs folder (docs/recall-upload.md, "Ingest").
struct RecallIngestCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("recall ingest")
    @Option(help: "The study's private key file (PEM). Its contents are never printed.") var key: String
    @Option(help: "The WebDAV drop folder URL, or a local folder, to take uploads from.") var from: String
    @Option(help: "The folder to store logs in (default: the project's recall logs folder).") var logs: String?
    @Option(help: "The study database to store logs in (a SQLite file or postgres://…).") var db: String?
    @Option(help: "The project folder whose dossier.yml names the logs folder.") var project: String = "."
    @Option(name: .customLong("move-to"),
            help: "Move stored uploads into this folder (relative to the drop) instead of deleting them.")
    var moveTo: String?
    @Option(help: "WebDAV user name (with a URL).") var user: String?
    @Option(help: "A netrc-style file with the WebDAV password (with a URL).") var netrc: String?
    @OptionGroup var trust: TrustOptions
    @OptionGroup var quiet: QuietFlag

    struct Tally {
        var stored = 0, dup = 0, rejected = 0, gone = 0
        var quiet = false
        /// Prints the outcome; true when the log is safely stored.
        mutating func report(_ name: String, _ outcome: RecallIngestOutcome) -> Bool {
            switch outcome {
            case .stored(let log):
                stored += 1
                if !quiet { print("\(name): stored \(log)") }
                return true
            case .duplicate(let log):
                dup += 1
                if !quiet { print("\(name): already stored as \(log)") }
                return true
            case .rejected(let reason):
                rejected += 1
                Console.note("\(name): refused: \(reason) (kept in the drop)")
                return false
            }
        }
    }

    /// Where logs go: --logs, --db, or the project's `recall: database:` (else its first
    /// `recall: logs:` folder).
    func sink() throws -> any RecallLogSink & RecallDevicePins {
        if logs != nil && db != nil { throw ValidationError("give --logs or --db, not both") }
        if let logs { return try folderSink(URL(fileURLWithPath: logs)) }
        if let db { return try databaseSink(db, place: "--db", shown: db) }
        let p = try Project.load(URL(fileURLWithPath: project))
        guard let c = p.sectionConfigs.first(where: { $0.key == "recall" }) else {
            throw DossierError(file: p.manifestURL.path, "no `recall:` section: give --logs FOLDER or --db DATABASE")
        }
        if let database = try c.string("database") {
            let text = StoreLocation.isPostgres(database) ? database : c.resolve(database).path
            return try databaseSink(text, place: "recall.database", shown: p.manifestURL.path)
        }
        guard let first = try c.strings("logs").first else {
            throw DossierError(file: p.manifestURL.path,
                               "no `recall: logs:` folder: give --logs FOLDER or --db DATABASE")
        }
        return try folderSink(c.resolve(first))
    }

    func folderSink(_ folder: URL) throws -> FolderRecallLogSink {
        do { return try FolderRecallLogSink(folder: folder, beforeWrite: { try FaultPoint.hit($0) }) } catch {
            throw DossierError(file: folder.path, "the logs folder does not exist (create it first)")
        }
    }

    func databaseSink(_ text: String, place: String, shown: String) throws -> RecallLogDatabase {
        do { return try RecallLogDatabase(StoreLocation.parse(text, place: place)) } catch let e as StoreError {
            throw DossierError(file: shown, e.message)
        }
    }

    func run() async throws {
        guard let pem = FileManager.default.contents(atPath: key) else {
            throw DossierError(file: key, "cannot read the key file")
        }
        let privateKey: _RSA.Encryption.PrivateKey
        do { privateKey = try Envelope.privateKey(pem: String(decoding: pem, as: UTF8.self)) } catch {
            throw DossierError(file: key, RecallIngest.message(error))
        }
        let sink = try sink()
        var tally = Tally()
        tally.quiet = quiet.quiet
        if from.hasPrefix("https://") || from.hasPrefix("http://") {
            try await pull(from, key: privateKey, sink: sink, tally: &tally)
        } else {
            try takeLocal(from, key: privateKey, sink: sink, tally: &tally)
        }
        quiet.say("\(tally.stored) stored, \(tally.dup) already stored, \(tally.rejected) refused"
                  + (tally.gone > 0 ? ", \(tally.gone) gone" : ""))
        if tally.rejected > 0 { throw ExitCode(1) }
    }

    /// Every *.rcu of a local folder, by name; each removed (or moved) once stored.
    func takeLocal(_ dir: String, key: _RSA.Encryption.PrivateKey, sink: any RecallLogSink & RecallDevicePins,
                   tally: inout Tally) throws {
        var isDir = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir else {
            throw DossierError(file: dir, "not a folder or an http(s) URL")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
            .filter { $0.hasSuffix(RecallUpload.fileExtension) && !$0.hasPrefix(".") }.sorted()
        let base = URL(fileURLWithPath: dir)
        if let moveTo {
            try FileManager.default.createDirectory(at: base.appendingPathComponent(moveTo),
                                                    withIntermediateDirectories: true)
        }
        for name in names {
            let url = base.appendingPathComponent(name)
            let data: Data
            switch DropFile.readLocal(url.path) {
            case .bytes(let d): data = d
            case .gone: tally.gone += 1; continue
            case .tooLong(let limit): _ = tally.report(name, .rejected(reason: DropFile.tooLongReason(limit))); continue
            }
            guard tally.report(name, RecallIngest.ingest(data, name: name, key: key, into: sink)) else { continue }
            try FaultPoint.hit("remove \(name) from the drop")
            do {
                if let moveTo {
                    let dest = base.appendingPathComponent(moveTo).appendingPathComponent(name)
                    try? FileManager.default.removeItem(at: dest)
                    try FileManager.default.moveItem(at: url, to: dest)
                } else {
                    try FileManager.default.removeItem(at: url)
                }
            } catch where !FileManager.default.fileExists(atPath: url.path) {
                // Another ingest took it away first: it is stored, nothing to do.
            }
        }
    }

    /// Every *.rcu of the WebDAV drop; each deleted (or moved) only after it is stored, so a
    /// kill at any point loses nothing (the re-run finds it stored and removes it).
    func pull(_ from: String, key: _RSA.Encryption.PrivateKey, sink: any RecallLogSink & RecallDevicePins,
              tally: inout Tally) async throws {
        guard let url = URL(string: from.hasSuffix("/") ? from : from + "/"), url.host != nil else {
            throw ValidationError("--from must be a URL such as https://dav.example.org/drop/ or a folder")
        }
        let credentials = try WebDAVLogin.credentials(for: url, user: user, netrc: netrc)
        do {
            let client = try WebDAVClient(baseURL: url, credentials: credentials, options: trust.clientOptions)
            let items = try await client.propfind("", depth: 1)
                .filter { !$0.isCollection && $0.path.hasSuffix(RecallUpload.fileExtension) && !$0.path.contains("/") }
                .map(\.path).sorted()
            if let moveTo { try await client.makeCollections(moveTo) }
            for name in items {
                let data: Data
                switch try await DropFile.fetch(client, name) {
                case .bytes(let d): data = d
                case .gone:
                    Console.note("warning: \(name): skipped: gone from the drop folder since it was listed (HTTP 404)")
                    tally.gone += 1
                    continue
                case .tooLong(let limit):
                    _ = tally.report(name, .rejected(reason: DropFile.tooLongReason(limit)))
                    continue
                }
                guard tally.report(name, RecallIngest.ingest(data, name: name, key: key, into: sink)) else { continue }
                if let moveTo { try await client.move(name, to: moveTo + "/" + name, overwrite: true) }
                else { _ = try await client.delete(name) }
            }
        } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
    }
}
#endif
