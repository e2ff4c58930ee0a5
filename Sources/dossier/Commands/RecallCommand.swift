import ArgumentParser
import DossierKit
#if canImport(FoundationEssentials)
import Dispatch
#endif
import RecallStudy
import TextBasics

/// `dossier recall …`: the RecallStudy tools.
struct RecallCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("recall", subcommands: [
        Simulate.self, ImportDesktop.self, RecallKeygen.self, RecallSeal.self, RecallIngestCommand.self, Parse.self
    ])

    static func fail(_ e: RecallError) -> DossierError {
        DossierError(file: e.file, line: e.line, column: e.column, e.message)
    }

    static func writeAtomically(_ data: Data, to url: URL) throws {
        try AtomicFile.write(data, to: url, sync: false)
    }

    struct Simulate: AsyncParsableCommand {
        static let configuration = HelpText.command("recall simulate")

        @Option(help: "How many participants to simulate (1–100000).")
        var participants: Int
        @Option(help: "Seed of the random generator (a whole number ≥ 0).")
        var seed: UInt64 = 1
        @Option(name: [.customLong("output"), .customShort("o")],
                help: "Folder to write the logs into (created if missing).")
        var out: String
        @Option(help: "A strings file to use instead of the NIST desktop strings.")
        var strings: String?
        @Option(help: "Share of abandoned sessions, 0–1.")
        var abandonRate: Double = 0.15
        @Option(help: "Number of the first participant (S<first>.jsonl …), to add to an existing folder.")
        var first: Int = 1
        @Flag(help: "Record each key as one tap event (what an iOS text field reports) instead of down/up pairs.")
        var taps = false
        @Flag(help: "Replace logs (and strings.txt) already in the folder; without it an existing one stops the run.")
        var force = false
        @OptionGroup var quiet: QuietFlag

        func validate() throws {
            guard (1...100_000).contains(participants) else {
                throw ValidationError("--participants must be 1–100000")
            }
            guard (0...1).contains(abandonRate) else { throw ValidationError("--abandon-rate must be between 0 and 1") }
            guard (1...999_999).contains(first) else { throw ValidationError("--first must be 1–999999") }
        }

        func run() async throws {
            let set: StringSet
            if let strings {
                do {
                    set = try StringSet.load(URL(fileURLWithPath: strings), display: strings)
                } catch let e as RecallError { throw fail(e) }
            } else {
                set = .nistDesktop
            }
            let dir = URL(fileURLWithPath: out)
            let names = (first..<(first + participants)).map { "\(Simulator.participantID($0)).jsonl" }
                + (strings == nil ? ["strings.txt"] : [])
            try NoOverwrite.check(names.map { dir.appendingPathComponent($0).path }, force: force,
                                  command: "recall simulate")
            do { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) } catch {
                throw DossierError(file: out, "cannot create the folder: \(error)")
            }
            var sim = Simulator(strings: set, seed: seed)
            sim.abandonRate = abandonRate
            sim.tapsOnly = taps
            for i in first..<(first + participants) {
                try writeAtomically(Data(sim.log(index: i).utf8),
                                    to: dir.appendingPathComponent("\(Simulator.participantID(i)).jsonl"))
            }
            if strings == nil {
                try writeAtomically(Data(set.fileText.utf8), to: dir.appendingPathComponent("strings.txt"))
            }
            quiet.note("wrote \(participants) session log\(participants == 1 ? "" : "s") to \(out)")
        }
    }

    struct ImportDesktop: AsyncParsableCommand {
        static let configuration = HelpText.command("recall import-desktop")

        @Argument(help: "The desktop Raw Data CSV file.")
        var file: String
        @Option(name: [.customLong("output"), .customShort("o")], help: "The JSON Lines file to write.")
        var out: String
        @Flag(help: "Replace the output file if it exists.") var force = false
        @OptionGroup var quiet: QuietFlag

        func run() async throws {
            try NoOverwrite.check([out], force: force, command: "recall import-desktop")
            let log: SessionLog
            do {
                log = try DesktopRaw.load(URL(fileURLWithPath: file), display: file)
            } catch let e as RecallError { throw fail(e) }
            var strings: [String]? = nil
            if log.declaredStrings.count == StringSet.count {
                strings = log.declaredStrings.sorted { $0.number < $1.number }.map(\.text)
            } else {
                let named = log.declaredStrings.count
                quiet.note("note: the file names \(named) of 10 target strings, so the log's header lists none; "
                           + "the strings file alone decides the targets")
            }
            let device = "desktop Raw Data import of \(URL(fileURLWithPath: file).lastPathComponent)"
            let text = NativeLogWriter.log(participant: log.participant, strings: strings, device: device,
                                           events: log.events)
            try writeAtomically(Data(text.utf8), to: URL(fileURLWithPath: out))
            quiet.note("wrote \(log.events.count) events to \(out)")
        }
    }

    /// `dossier recall parse LOGS…` (hidden): reads and parses every session log on every
    /// core, as a build does, and does nothing else — no analysis, no output files. The
    /// benchmarks time it as the floor of a study build (docs/benchmarks.md).
    struct Parse: ParsableCommand {
        static let configuration = HelpText.command("recall parse", hidden: true)

        @Argument(help: "Log files (*.jsonl native, *.csv desktop Raw Data) or folders of them.")
        var paths: [String]
        @OptionGroup var quiet: QuietFlag

        func run() throws {
            var files: [URL] = []
            for p in paths {
                let url = URL(fileURLWithPath: p)
                var dir = false
                if FileManager.default.fileExists(atPath: p, isDirectory: &dir), dir {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: p)) ?? []
                    files += names.filter { $0.hasSuffix(".jsonl") || $0.hasSuffix(".csv") }.sorted()
                        .map { url.appendingPathComponent($0) }
                } else {
                    files.append(url)
                }
            }
            let list = files
            let outcome = ParseOutcome()
            DispatchQueue.concurrentPerform(iterations: list.count) { i in
                let url = list[i]
                do {
                    let log = url.pathExtension.lowercased() == "csv"
                        ? try DesktopRaw.load(url, display: url.path) : try NativeLog.load(url, display: url.path)
                    outcome.add(events: log.events.count)
                } catch let e as RecallError {
                    outcome.fail(RecallCommand.fail(e))
                } catch {
                    outcome.fail(DossierError(file: url.path, "\(error)"))
                }
            }
            if let first = outcome.firstFailure { throw first }
            quiet.say("\(list.count) logs, \(outcome.events) events")
        }
    }
}

/// Totals and errors collected from concurrent work.
private final class ParseOutcome: @unchecked Sendable {
    private var total = 0
    private var failures: [DossierError] = []
    private let lock = PlainLock()
    func add(events n: Int) { lock.lock(); total += n; lock.unlock() }
    func fail(_ e: DossierError) { lock.lock(); failures.append(e); lock.unlock() }
    var events: Int { lock.lock(); defer { lock.unlock() }; return total }
    var firstFailure: DossierError? { lock.lock(); defer { lock.unlock() }; return failures.first }
}
