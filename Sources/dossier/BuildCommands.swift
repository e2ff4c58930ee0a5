import ArgumentParser
import DossierKit

/// Options every building command shares.
struct LogOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only warnings and errors.")
    var quiet = false
    @Flag(name: .shortAndLong, help: "Print what each step does.")
    var verbose = false

    var log: BuildLog { BuildLog(level: quiet ? .quiet : (verbose ? .verbose : .normal)) }
}

/// The project a building command reads, and whether its drafts count.
struct ProjectOptions: ParsableArguments {
    @Argument(help: "The project folder (holds dossier.yml).", completion: .directory)
    var project: String = "."
    @Flag(help: "Include content pages marked `draft: true`.")
    var drafts = false

    var folder: URL { URL(fileURLWithPath: project) }
}

struct BuildCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("build")

    @OptionGroup var project: ProjectOptions
    @Flag(help: "Ignore the incremental cache and rebuild every page.")
    var clean = false
    @OptionGroup var logging: LogOptions

    func run() async throws {
        var options = BuildOptions(clean: clean, drafts: project.drafts)
        options.leaveMemoryToExit = true            // (the process ends with the build)
        _ = try await Builder(project: project.folder, options: options, log: logging.log).build()
    }
}

struct CheckCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("check")

    @OptionGroup var project: ProjectOptions
    @OptionGroup var logging: LogOptions

    func run() async throws {
        var options = BuildOptions(clean: true, drafts: project.drafts, checkOnly: true)
        options.leaveMemoryToExit = true            // (the process ends with the check)
        let builder = Builder(project: project.folder, options: options, log: logging.log)
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

    @OptionGroup var project: ProjectOptions
    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 8000
    @OptionGroup var logging: LogOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        let server = PreviewServer(project: project.folder, port: UInt16(port), drafts: project.drafts,
                                   log: logging.log)
        try await server.run()
    }
}
