import ArgumentParser
import DossierKit
import GameAnalytics
import WebDAV
import Crypto
import _CryptoExtras
#if canImport(Glibc)
import Glibc
#endif
import TextBasics

/// `dossier game …`: the GameAnalytics tools (RocketMouse telemetry).
struct GameCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("game", subcommands: [
        GameKeygen.self, GameSeal.self, GameIngest.self, GameSimulate.self, GameAnalyze.self, GameFitExGaussian.self,
        GameFitLogistic.self
    ])
}

// MARK: - Helpers

extension GameError {
    fileprivate var dossier: DossierError { DossierError(file: file, line: line, column: column, message) }
}

/// Runs `body`, turning a GameError into the CLI's `file:line: message` error.
fileprivate func game<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as GameError { throw e.dossier }
}

/// Writes `data` atomically with the given permissions (temp file in the same folder, fsync, rename).
fileprivate func writeAtomically(_ data: Data, to url: URL, mode: mode_t) throws {
    try AtomicFile.write(data, to: url, mode: mode)
}

/// The bytes of `path`, or of standard input when it is nil or `-` (also GameOracleCommands.swift).
func gameReadInput(_ path: String?) throws -> Data {
    if let path, path != "-" {
        guard let d = FileManager.default.contents(atPath: path) else {
            throw DossierError(file: path, "cannot read the file")
        }
        return d
    }
    return Stdio.readInputToEnd()
}

/// `value` as pretty JSON with sorted keys on standard output.
func gamePrintJSON<T: Encodable>(_ value: T) throws {
    let enc = JSONEncoder()
    enc.outputFormatting = [.sortedKeys, .prettyPrinted]
    Stdio.writeOutput(try enc.encode(value) + Data("\n".utf8))
}

// MARK: - keygen

struct GameKeygen: ParsableCommand {
    static let configuration = HelpText.command("game keygen")
    @OptionGroup var files: KeyPairFiles
    @OptionGroup var quiet: QuietFlag

    func run() throws { try files.write(quiet) }
}

// MARK: - seal

struct GameSeal: ParsableCommand {
    static let configuration = HelpText.command("game seal")
    @Option(help: "The study's public key (PEM).") var `public`: String
    @Option(name: [.customLong("output"), .customShort("o")], help: "Folder for the sealed uploads.") var out: String
    @Option(help: "Folder of the devices' keys (default: <out>-devices beside the uploads).") var devices: String?
    @Argument(help: "JSON Lines telemetry files.") var files: [String]
    @OptionGroup var quiet: QuietFlag

    struct DeviceFile: Codable { var signing_key: String; var result_key: String }

    /// The result key of an upload: HMAC-SHA-256 keyed by the device's signing key over the
    /// body, so sealing unchanged data again (a duplicate ingest never stores) keeps the key
    /// the study encrypts this device's result with (docs/game-telemetry.md).
    static func resultKey(signing: Curve25519.Signing.PrivateKey, body: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("RocketMouse seal result key v1\n".utf8) + body,
                                             using: SymmetricKey(data: signing.rawRepresentation)))
    }

    func run() throws {
        let pem = try String(decoding: gameReadInput(`public`), as: UTF8.self)
        var reader = TelemetryJSONL.Reader()
        for f in files {
            guard let data = FileManager.default.contents(atPath: f) else {
                throw DossierError(file: f, "cannot read the file")
            }
            if let (line, message) = UTF8Check.problem(data) { throw DossierError(file: f, line: line, message) }
            let text = String(decoding: data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data, as: UTF8.self)
            try game { try reader.add(text: text, file: f) }
        }
        let cohort = reader.cohort()
        let keyDir = URL(fileURLWithPath: devices ?? (out.hasSuffix("/") ? String(out.dropLast()) : out) + "-devices")
        try FileManager.default.createDirectory(at: keyDir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        for p in cohort.players {
            let keyURL = keyDir.appendingPathComponent("\(p.id).device.json")
            var signing = Curve25519.Signing.PrivateKey()
            if let d = FileManager.default.contents(atPath: keyURL.path) {
                guard let f = try? JSONDecoder().decode(DeviceFile.self,
                                                        from: d), let raw = Data(base64Encoded: f.signing_key),
                      let k = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
                    throw DossierError(file: keyURL.path, "not a device key file")
                }
                signing = k
            }
            let seeds = (reader.seeds[p.id] ?? [:]).mapValues(\.seed)
            let body = Data(TelemetryJSONL.lines(for: p, seeds: seeds).map { $0 + "\n" }.joined().utf8)
            let resultKey = Self.resultKey(signing: signing, body: body)
            let plain = try SignedUpload.make(body: body, player: p.id, signingKey: signing, resultKey: resultKey)
            let sealed = try game { try Upload.seal(plain, publicKeyPEM: pem) }
            let file = DeviceFile(signing_key: signing.rawRepresentation.base64EncodedString(),
                                  result_key: resultKey.base64EncodedString())
            try writeAtomically(try JSONEncoder().encode(file), to: keyURL, mode: 0o600)
            try writeAtomically(sealed, to: URL(fileURLWithPath: out).appendingPathComponent("\(p.id).rmu"),
                                mode: 0o644)
        }
        quiet.note("sealed \(cohort.players.count) uploads into \(out) (device keys in \(keyDir.path))")
    }
}

// MARK: - ingest

struct GameIngest: AsyncParsableCommand {
    static let configuration = HelpText.command("game ingest")
    @Option(help: "The study's private key file (PEM). Its contents are never printed.") var key: String
    @Option(help: "The study database: a SQLite file (created if missing) or postgres://… (docs/store.md).")
    var db: String
    @Option(help: "A WebDAV drop folder URL to pull uploads from.") var from: String?
    @Option(name: .customLong("move-to"),
            help: """
                With --from: move stored uploads into this folder (relative to the drop folder) \
                instead of deleting them.
                """)
    var moveTo: String?
    @Option(help: "WebDAV user name (with --from).") var user: String?
    @Option(help: "A netrc-style file with the WebDAV password (with --from).") var netrc: String?
    @OptionGroup var trust: TrustOptions
    @Argument(help: "Upload files or folders of uploads (every *.rmu file inside).") var inputs: [String] = []
    @OptionGroup var quiet: QuietFlag

    func validate() throws {
        guard (from == nil) != inputs.isEmpty else {
            throw ValidationError("give either --from URL or upload files/folders")
        }
        if moveTo != nil && from == nil { throw ValidationError("--move-to needs --from") }
    }

    struct Tally {
        var stored = 0, dup = 0, rejected = 0
        /// -q: no line for a stored or duplicate upload (a rejection is still reported).
        var quiet = false
        /// Listed in the drop folder but gone when fetched (404): skipped with a warning.
        var gone = 0
        /// Prints the outcome; true when the upload is safely in the database.
        mutating func report(_ name: String, _ outcome: IngestOutcome) throws -> Bool {
            switch outcome {
            case .stored(let p, let n):
                stored += 1
                if !quiet { print("\(name): stored player \(p) (\(n) new sessions)") }
                return true
            case .duplicate(let p):
                dup += 1
                if !quiet { print("\(name): duplicate of an upload already stored for player \(p)") }
                return true
            case .rejected(let reason): rejected += 1; Console.note("\(name): rejected: \(reason)"); return false
            case .failed(let reason):
                // The database failed, not the upload: stop here; a re-run stores the rest.
                throw DossierError("\(name): not stored: \(reason) (\(stored) stored before this; run the "
                                   + "ingest again when the database is back)")
            }
        }
    }

    func run() async throws {
        let pem = try String(decoding: gameReadInput(key), as: UTF8.self)
        let privateKey = try game { try Upload.privateKey(pem: pem) }
        let database = try game { try StudyDatabase(path: db) }
        var tally = Tally()
        tally.quiet = quiet.quiet
        if let from {
            try await pull(from, key: privateKey, database: database, tally: &tally)
        } else {
            var files: [URL] = []
            for i in inputs {
                var isDir = false
                guard FileManager.default.fileExists(atPath: i, isDirectory: &isDir) else {
                    throw DossierError(file: i, "not found")
                }
                if isDir {
                    let names = try FileManager.default.contentsOfDirectory(atPath: i)
                        .filter { $0.hasSuffix(".rmu") }.sorted()
                    files += names.map { URL(fileURLWithPath: i).appendingPathComponent($0) }
                } else { files.append(URL(fileURLWithPath: i)) }
            }
            for f in files {
                let data: Data
                switch DropFile.readLocal(f.path) {
                case .bytes(let d): data = d
                case .gone: Console.note("\(f.path): rejected: cannot read the file"); tally.rejected += 1; continue
                case .tooLong(let limit):
                    _ = try tally.report(f.path, .rejected(reason: DropFile.tooLongReason(limit))); continue
                }
                _ = try tally.report(f.path,
                                     Ingest.ingest(data, name: f.lastPathComponent, key: privateKey, into: database))
            }
        }
        quiet.say("\(tally.stored) stored, \(tally.dup) duplicates, \(tally.rejected) rejected"
                  + (tally.gone > 0 ? ", \(tally.gone) gone" : ""))
        if tally.rejected > 0 { throw ExitCode(1) }
    }

    /// Pulls every *.rmu of the drop folder; removes each only after it is committed, so a
    /// kill at any point loses nothing (a re-run finds it again and reports a duplicate).
    func pull(_ from: String, key: _RSA.Encryption.PrivateKey, database: StudyDatabase,
              tally: inout Tally) async throws {
        guard let url = URL(string: from.hasSuffix("/") ? from : from + "/"), url.scheme != nil else {
            throw ValidationError("--from must be a URL such as https://dav.example.org/drop/")
        }
        let credentials = try WebDAVLogin.credentials(for: url, user: user, netrc: netrc)
        do {
            let client = try WebDAVClient(baseURL: url, credentials: credentials, options: trust.clientOptions)
            let items = try await client.propfind("", depth: 1)
                .filter { !$0.isCollection && $0.path.hasSuffix(".rmu") && !$0.path.contains("/") }
                .map(\.path).sorted()
            if let moveTo { try await client.makeCollections(moveTo) }
            for name in items {
                let data: Data
                switch try await DropFile.fetch(client, name) {
                case .bytes(let d): data = d
                case .gone(let where_):
                    // Gone since the listing (another ingest took it): skipped, the run goes on.
                    Stdio.writeError(Data(("warning: \(name): skipped: gone from the drop folder since it was listed "
                                           + "(\(where_), HTTP 404)\n").utf8))
                    tally.gone += 1
                    continue
                case .tooLong(let limit):
                    _ = try tally.report(name, .rejected(reason: DropFile.tooLongReason(limit)))
                    continue
                }
                guard try tally.report(name, Ingest.ingest(data, name: name, key: key, into: database)) else {
                    continue
                }
                if let moveTo { try await client.move(name, to: moveTo + "/" + name, overwrite: true) }
                else { try await client.delete(name) }
            }
        } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
    }
}

// MARK: - simulate

struct GameSimulate: ParsableCommand {
    static let configuration = HelpText.command("game simulate")
    @Option(help: "Number of players.") var players: Int = 220
    @Option(help: "Random seed: the same seed gives the same bytes.") var seed: UInt64 = 1
    @Option(help: "Obstacles per session.") var obstacles: Int = 80
    @Option(name: [.customLong("output"), .customShort("o")],
            help: "JSON Lines output file (default: standard output).") var out: String?
    @Option(help: "Also (or instead) store the cohort in this study database (SQLite file or postgres://…).")
    var db: String?
    @Flag(help: "Replace the --output file if it exists.") var force = false
    @OptionGroup var quiet: QuietFlag

    func validate() throws {
        guard (1...100_000).contains(players) else { throw ValidationError("--players must be 1…100000") }
        guard (1...1000).contains(obstacles) else { throw ValidationError("--obstacles must be 1…1000") }
    }

    func run() throws {
        try NoOverwrite.check(out.map { [$0] } ?? [], force: force, command: "game simulate")
        var sim = Simulator(players: players, seed: seed)
        sim.obstaclesPerSession = obstacles
        let cohort = sim.run()
        if let db {
            try game { try StudyDatabase(path: db).store(cohort: cohort) }
        }
        let text = TelemetryJSONL.text(for: cohort)
        if let out { try writeAtomically(Data(text.utf8), to: URL(fileURLWithPath: out), mode: 0o644) }
        else if db == nil { Stdio.writeOutput(Data(text.utf8)) }
        let sessions = cohort.players.reduce(0) { $0 + $1.sessions.count }
        let what = "\(cohort.players.count) player\(cohort.players.count == 1 ? "" : "s"), "
            + "\(sessions) session\(sessions == 1 ? "" : "s") (seed \(seed))"
        for path in [out, db].compactMap({ $0 }) { quiet.note("wrote \(path): \(what)") }
    }
}

// MARK: - analyze

struct GameAnalyze: ParsableCommand {
    static let configuration = HelpText.command("game analyze")
    @Option(help: "Read the study database (SQLite file or postgres://…) instead of files.") var db: String?
    @Flag(help: "JSON output (the only format).") var json = false
    @Option(name: .customLong("C"), help: "Inverse L2 penalty, as scikit-learn's C.") var C: Double = 1.0
    @Argument(help: "JSON Lines telemetry files.") var files: [String] = []
    @OptionGroup var quiet: QuietFlag

    func validate() throws {
        guard (db == nil) != files.isEmpty else { throw ValidationError("give either --db or telemetry files") }
    }

    func run() throws {
        let cohort = try game {
            if let db { return try StudyDatabase(path: db, create: false).readCohort() }
            return try TelemetryJSONL.read(files: files.map { URL(fileURLWithPath: $0) }, displayName: { $0.path })
        }
        var o = AnalysisOptions()
        o.C = C
        try gamePrintJSON(CohortAnalyzer.analyze(cohort, options: o))
    }
}
