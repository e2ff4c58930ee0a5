import ArgumentParser
import DossierKit
import Foundation
import GameAnalytics
#if canImport(Glibc)
import Glibc
#endif

/// `dossier game …`: the GameAnalytics tools (RocketMouse telemetry).
struct GameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "game",
        abstract: "RocketMouse game telemetry: keys, sealed uploads, ingest, simulation, analysis.",
        discussion: """
        Example, end to end:
          dossier game keygen --out study                  # study.key (secret) + study.pub
          dossier game simulate --players 220 --seed 1 --out cohort.jsonl
          dossier game seal --public study.pub --out uploads cohort.jsonl
          dossier game ingest --key study.key uploads --db study.sqlite
          dossier game analyze --db study.sqlite --json > analysis.json

        Formats: docs/game-telemetry.md. Measures and model: docs/game-measures.md.
        """,
        subcommands: [GameKeygen.self, GameSeal.self, GameIngest.self, GameSimulate.self, GameAnalyze.self,
                      GameFitExGaussian.self, GameFitLogistic.self]
    )
}

// MARK: - Helpers

extension GameError {
    fileprivate var dossier: DossierError { DossierError(file: file, line: line, message) }
}

/// Runs `body`, turning a GameError into the CLI's `file:line: message` error.
fileprivate func game<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as GameError { throw e.dossier }
}

/// Writes `data` atomically with the given permissions (temp file in the same folder, fsync, rename).
fileprivate func writeAtomically(_ data: Data, to url: URL, mode: mode_t) throws {
    try AtomicFile.write(data, to: url, mode: mode)
}

fileprivate func readInput(_ path: String?) throws -> Data {
    if let path, path != "-" {
        guard let d = FileManager.default.contents(atPath: path) else { throw DossierError(file: path, "cannot read the file") }
        return d
    }
    return FileHandle.standardInput.readDataToEndOfFile()
}

fileprivate func printJSON<T: Encodable>(_ value: T) throws {
    let enc = JSONEncoder()
    enc.outputFormatting = [.sortedKeys, .prettyPrinted]
    FileHandle.standardOutput.write(try enc.encode(value) + Data("\n".utf8))
}

// MARK: - keygen

struct GameKeygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make the study's RSA key pair.",
        discussion: """
        Writes PREFIX.key (the private key, PKCS#8 PEM, mode 0600 — keep it secret; it opens \
        every upload) and PREFIX.pub (the public key the game seals uploads to). \
        Example: dossier game keygen --out study
        """)
    @Option(help: "Path prefix of the two files.") var out: String
    @Option(help: "RSA modulus size: 2048, 3072 or 4096.") var bits: Int = 3072
    @Flag(help: "Replace existing files.") var force = false

    func validate() throws {
        guard [2048, 3072, 4096].contains(bits) else { throw ValidationError("--bits must be 2048, 3072 or 4096") }
    }

    func run() throws {
        let keyURL = URL(fileURLWithPath: out + ".key"), pubURL = URL(fileURLWithPath: out + ".pub")
        for u in [keyURL, pubURL] where !force && FileManager.default.fileExists(atPath: u.path) {
            throw DossierError(file: u.path, "already exists (use --force to replace it)")
        }
        let pair = try Upload.makeKeyPair(bits: bits)
        try writeAtomically(Data(pair.privatePEM.utf8), to: keyURL, mode: 0o600)
        try writeAtomically(Data(pair.publicPEM.utf8), to: pubURL, mode: 0o644)
        Console.note("wrote \(keyURL.path) (secret, mode 0600) and \(pubURL.path)")
    }
}

// MARK: - seal

struct GameSeal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seal",
        abstract: "Seal telemetry to the study key, one upload per player (for tests and demos).",
        discussion: "Example: dossier game seal --public study.pub --out uploads cohort.jsonl  # uploads/<player>.rmu")
    @Option(help: "The study's public key (PEM).") var `public`: String
    @Option(help: "Folder for the sealed uploads.") var out: String
    @Argument(help: "JSON Lines telemetry files.") var files: [String]

    func run() throws {
        let pem = try String(decoding: readInput(`public`), as: UTF8.self)
        let cohort = try game { try TelemetryJSONL.read(files: files.map { URL(fileURLWithPath: $0) }, displayName: { $0.path }) }
        for p in cohort.players {
            let text = TelemetryJSONL.lines(for: p).map { $0 + "\n" }.joined()
            let sealed = try game { try Upload.seal(Data(text.utf8), publicKeyPEM: pem) }
            try writeAtomically(sealed, to: URL(fileURLWithPath: out).appendingPathComponent("\(p.id).rmu"), mode: 0o644)
        }
        Console.note("sealed \(cohort.players.count) uploads into \(out)")
    }
}

// MARK: - ingest

struct GameIngest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Open, validate and store sealed uploads in the study database.",
        discussion: """
        Every upload is checked and stored in its own transaction: the same content twice is \
        stored once, and a malformed, tampered or wrongly-keyed upload is rejected with a \
        reason while everything else is kept. Exit status 1 if any upload was rejected. \
        Example: dossier game ingest --key study.key uploads --db study.sqlite
        """)
    @Option(help: "The study's private key file (PEM). Its contents are never printed.") var key: String
    @Option(help: "The SQLite study database (created if missing).") var db: String
    @Argument(help: "Upload files or folders of uploads (every *.rmu file inside).") var inputs: [String]

    func run() throws {
        let pem = try String(decoding: readInput(key), as: UTF8.self)
        let privateKey = try game { try Upload.privateKey(pem: pem) }
        var files: [URL] = []
        for i in inputs {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: i, isDirectory: &isDir) else { throw DossierError(file: i, "not found") }
            if isDir.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: i).filter { $0.hasSuffix(".rmu") }.sorted()
                files += names.map { URL(fileURLWithPath: i).appendingPathComponent($0) }
            } else { files.append(URL(fileURLWithPath: i)) }
        }
        let database = try game { try StudyDatabase(path: db) }
        var stored = 0, dup = 0, rejected = 0
        for f in files {
            guard let data = FileManager.default.contents(atPath: f.path) else {
                Console.note("\(f.path): rejected: cannot read the file"); rejected += 1; continue
            }
            switch Ingest.ingest(data, name: f.lastPathComponent, key: privateKey, into: database) {
            case .stored(let p, let n): stored += 1; print("\(f.path): stored player \(p) (\(n) new sessions)")
            case .duplicate(let p): dup += 1; print("\(f.path): duplicate of an upload already stored for player \(p)")
            case .rejected(let reason): rejected += 1; Console.note("\(f.path): rejected: \(reason)")
            }
        }
        print("\(stored) stored, \(dup) duplicates, \(rejected) rejected")
        if rejected > 0 { throw ExitCode(1) }
    }
}

// MARK: - simulate

struct GameSimulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a simulated cohort (assumptions in docs/game-measures.md).",
        discussion: "Example: dossier game simulate --players 220 --seed 1 --out data/game/cohort.jsonl")
    @Option(help: "Number of players.") var players: Int = 220
    @Option(help: "Random seed: the same seed gives the same bytes.") var seed: UInt64 = 1
    @Option(help: "Obstacles per session.") var obstacles: Int = 80
    @Option(help: "JSON Lines output file (default: standard output).") var out: String?
    @Option(help: "Also (or instead) store the cohort in this SQLite database.") var db: String?

    func validate() throws {
        guard (1...100_000).contains(players) else { throw ValidationError("--players must be 1…100000") }
        guard (1...1000).contains(obstacles) else { throw ValidationError("--obstacles must be 1…1000") }
    }

    func run() throws {
        var sim = Simulator(players: players, seed: seed)
        sim.obstaclesPerSession = obstacles
        let cohort = sim.run()
        if let db {
            try game { try StudyDatabase(path: db).store(cohort: cohort) }
        }
        let text = TelemetryJSONL.text(for: cohort)
        if let out { try writeAtomically(Data(text.utf8), to: URL(fileURLWithPath: out), mode: 0o644) }
        else if db == nil { FileHandle.standardOutput.write(Data(text.utf8)) }
    }
}

// MARK: - analyze

struct GameAnalyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Print the cohort analysis as JSON (from JSON Lines files or a database).",
        discussion: "Example: dossier game analyze --db study.sqlite --json")
    @Option(help: "Read the SQLite study database instead of files.") var db: String?
    @Flag(help: "JSON output (the only format).") var json = false
    @Option(name: .customLong("C"), help: "Inverse L2 penalty, as scikit-learn's C.") var C: Double = 1.0
    @Argument(help: "JSON Lines telemetry files.") var files: [String] = []

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
        try printJSON(CohortAnalyzer.analyze(cohort, options: o))
    }
}

// MARK: - Oracle helpers (hidden)

struct GameFitExGaussian: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fit-exgauss", abstract: "Fit an ex-Gaussian to numbers on standard input (oracle tests).",
        shouldDisplay: false)
    @Flag var json = false

    struct Output: Encodable {
        var mu, sigma, tau, logLikelihood: Double
        var n: Int
        var flags: [String]
        var moments: ExGaussianParams?
    }

    func run() throws {
        let text = String(decoding: try readInput(nil), as: UTF8.self)
        var xs: [Double] = []
        for (i, tok) in text.split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "," || $0 == "\t" || $0 == "\r" }).enumerated() {
            guard let d = Double(tok), d.isFinite else { throw DossierError(file: "<stdin>", "value \(i + 1) is not a number") }
            xs.append(d)
        }
        guard let fit = ExGaussian.fit(xs) else { throw DossierError(file: "<stdin>", "need at least \(ExGaussian.minimumN) values with some spread") }
        try printJSON(Output(mu: fit.params.mu, sigma: fit.params.sigma, tau: fit.params.tau,
                             logLikelihood: fit.logLikelihood, n: fit.n, flags: fit.flags, moments: fit.moments))
    }
}

struct GameFitLogistic: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fit-logistic",
        abstract: "Fit the L2 logistic regression to a CSV on standard input (oracle tests).",
        discussion: "CSV with a header; every column is a feature except the last, the 0/1 label. Features are standardised as documented.",
        shouldDisplay: false)
    @Flag var json = false
    @Option(name: .customLong("C"), help: "Inverse L2 penalty, as scikit-learn's C.") var C: Double = 1.0

    struct Output: Encodable {
        var intercept: Double
        var coefficients: [Double]
        var auc: Double?
        var means: [Double]
        var sds: [Double]
        var iterations: Int
    }

    func run() throws {
        let text = String(decoding: try readInput(nil), as: UTF8.self)
        var rows: [[Double]] = [], labels: [Bool] = []
        for (i, line) in text.split(whereSeparator: \.isNewline).enumerated().dropFirst() {
            let f = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard f.count >= 2, f.allSatisfy({ $0 != nil }), let y = f.last!, y == 0 || y == 1 else {
                throw DossierError(file: "<stdin>", line: i + 1, "expected numbers and a final 0/1 label")
            }
            rows.append(f.dropLast().map { $0! })
            labels.append(y == 1)
        }
        guard !rows.isEmpty, Set(rows.map(\.count)).count == 1 else { throw DossierError(file: "<stdin>", "no rows, or rows of different lengths") }
        let s = Standardizer(fitting: rows)
        let z = rows.map(s.apply)
        guard let m = LogisticModel.fit(rows: z, labels: labels, C: C) else { throw DossierError(file: "<stdin>", "the fit failed") }
        try printJSON(Output(intercept: m.intercept, coefficients: m.coefficients,
                             auc: ROC.auc(scores: z.map(m.probability), labels: labels),
                             means: s.means, sds: s.sds, iterations: m.iterations))
    }
}
