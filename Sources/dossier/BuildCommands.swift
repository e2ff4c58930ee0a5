import ArgumentParser
import DossierKit
import Foundation

/// Options every building command shares.
struct LogOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only warnings and errors.")
    var quiet = false
    @Flag(name: .shortAndLong, help: "Print what each step does.")
    var verbose = false

    var log: BuildLog { BuildLog(level: quiet ? .quiet : (verbose ? .verbose : .normal)) }
}

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build the project's site.",
        discussion: """
        Reads PROJECT/dossier.yml, imports every section's inputs, computes results and \
        writes the site to the manifest's `output` folder (default _site) plus a manifest \
        of every file beside it (_site.manifest.json). Only inputs whose content changed \
        are recomputed; the new site replaces the old one only when the whole build \
        succeeded, so a failed build leaves the previous site untouched.

        Examples:
          dossier build                     # the project in the current folder
          dossier build Examples/demo       # the demo project
          dossier build my-study --clean    # ignore the cache, rebuild everything
        """)

    @Argument(help: "The project folder (holds dossier.yml).", completion: .directory)
    var project: String = "."
    @Flag(help: "Ignore the incremental cache and rebuild every page.")
    var clean = false
    @Flag(help: "Include content pages marked `draft: true`.")
    var drafts = false
    @OptionGroup var logging: LogOptions

    func run() async throws {
        let builder = Builder(project: URL(fileURLWithPath: project), options: BuildOptions(clean: clean, drafts: drafts),
                              log: logging.log)
        _ = try await builder.build()
    }
}

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate the project completely, writing nothing.",
        discussion: """
        Runs every step of a build — manifest, inputs, computations, templates, link \
        check — in a temporary folder that is removed afterwards. Exit status 0 means \
        `dossier build` would succeed.

        Example:
          dossier check Examples/demo
        """)

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
            print("ok: \(report.files) files would be written" + (report.warnings.isEmpty ? "" : ", \(report.warnings.count) warnings"))
        }
    }
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Preview the site on 127.0.0.1 with live reload.",
        discussion: """
        Builds the project into .dossier/preview/ (your _site is not touched), serves it \
        on the loopback address only, watches the project for changes, rebuilds, and \
        reloads open pages. A failed rebuild keeps serving the last good site and shows \
        the error in the terminal. Stop with Ctrl-C.

        Examples:
          dossier serve Examples/demo                 # http://127.0.0.1:8000/
          dossier serve my-study --port 0             # any free port (printed)
        """)

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
        let server = PreviewServer(project: URL(fileURLWithPath: project), port: UInt16(port), drafts: drafts, log: logging.log)
        try await server.run()
    }
}
