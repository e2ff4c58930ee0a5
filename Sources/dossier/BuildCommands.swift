import ArgumentParser
import DossierKit
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Options every building command shares.
struct LogOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only warnings and errors.")
    var quiet = false
    @Flag(name: .shortAndLong, help: "Print what each step does.")
    var verbose = false

    var log: BuildLog { BuildLog(level: quiet ? .quiet : (verbose ? .verbose : .normal)) }
}

struct BuildCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("build")

    @Argument(help: "The project folder (holds dossier.yml).", completion: .directory)
    var project: String = "."
    @Flag(help: "Ignore the incremental cache and rebuild every page.")
    var clean = false
    @Flag(help: "Include content pages marked `draft: true`.")
    var drafts = false
    @OptionGroup var logging: LogOptions

    func run() async throws {
        let builder = Builder(
            project: URL(fileURLWithPath: project), options: BuildOptions(clean: clean, drafts: drafts),
            log: logging.log)
        _ = try await builder.build()
    }
}

struct CheckCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("check")

    @Argument(help: "The project folder.", completion: .directory)
    var project: String = "."
    @Flag(help: "Include content pages marked `draft: true`.")
    var drafts = false
    @OptionGroup var logging: LogOptions

    func run() async throws {
        let builder = Builder(project: URL(fileURLWithPath: project),
                              options: BuildOptions(clean: true, drafts: drafts, checkOnly: true), log: logging.log)
        let report = try await builder.build()
        if !logging.quiet {
            print(
                "ok: \(report.files) files would be written"
                    + (report.warnings.isEmpty ? "" : ", \(report.warnings.count) warnings"))
        }
    }
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("serve")

    @Argument(help: "The project folder.", completion: .directory)
    var project: String = "."
    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 8000
    @Flag(help: "Include content pages marked `draft: true`.")
    var drafts = false
    @OptionGroup var logging: LogOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        let server = PreviewServer(
            project: URL(fileURLWithPath: project), port: UInt16(port), drafts: drafts, log: logging.log)
        try await server.run()
    }
}
