import ArgumentParser
import DossierKit
import Experiences
#if canImport(Glibc)
import Glibc
#endif
import TextBasics

/// `dossier experiences …`: check experience files and import tours from other viewers.
struct ExperiencesCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("experiences", subcommands: [
        ExperiencesValidate.self, ExperiencesImport.self
    ])
}

// MARK: - validate

extension ExperiencesValidate {
    /// The files to check: a folder stands for the `*.json` files directly inside it (not
    /// hidden ones), in the order of their names, as the build reads an experiences folder.
    static func expand(_ args: [String]) throws -> [String] {
        try args.flatMap { arg -> [String] in
            var isDir = false
            guard FileManager.default.fileExists(atPath: arg, isDirectory: &isDir), isDir else { return [arg] }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: arg)) ?? [])
                .filter { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
            guard !names.isEmpty else {
                throw DossierError(file: arg, "a folder with no experience file (*.json) directly inside; "
                    + "give the folder that holds them (the experiences: input: of dossier.yml) "
                    + "or the files themselves")
            }
            return names.map { (arg.hasSuffix("/") ? arg : arg + "/") + $0 }
        }
    }
}

struct ExperiencesValidate: ParsableCommand {
    static let configuration = HelpText.command("experiences validate")

    @Argument(help: "Experience files (JSON), or folders of them.")
    var files: [String]

    @Flag(help: "Print the analysis of each experience as JSON on standard output.")
    var json = false

    @OptionGroup var quiet: QuietFlag

    func run() throws {
        var loaded: [(Experience, URL)] = []
        var issues: [ExperienceIssue] = []
        for f in try Self.expand(files) {
            let url = URL(fileURLWithPath: f)
            let (e, found) = ExperienceLoader.load(url: url, display: f)
            issues += found
            if let e { loaded.append((e, url)) }
        }
        let (checked, collection) = ExperienceCollection.check(loaded.map(\.0))
        issues += collection
        var reports: [ExperienceAnalysisOutput] = []
        for (e, (_, url)) in zip(checked, loaded) {
            let g = GraphAnalysis(e)
            let bytes = (try? Data(contentsOf: url).count) ?? 0
            let m = MediaReport(e, root: url.deletingLastPathComponent(), fileBytes: bytes)
            issues += g.issues(for: e) + m.warnings
            reports.append(ExperienceAnalysisOutput(file: e.file, title: e.title ?? "", graph: g, media: m))
        }
        let errors = issues.filter { $0.severity == .error }
        for i in issues { Stdio.writeError(Data((i.description + "\n").utf8)) }
        if !errors.isEmpty {
            throw DossierError(file: nil, line: nil,
                               "\(errors.count) error(s) in \(Set(errors.map(\.file)).count) file(s)")
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys, .prettyPrinted]
            Stdio.writeOutput(try enc.encode(reports) + Data("\n".utf8))
        } else {
            for r in reports {
                let path = r.graph.shortestPath?.joined(separator: " → ") ?? "the end cannot be reached"
                quiet.say("\(r.file): ok: \"\(r.title)\": \(r.graph.nodes.count) panoramas, "
                          + "\(r.graph.totalClips) clips, \(r.media.totalBytes) bytes; shortest path \(path)")
            }
        }
    }
}

struct ExperienceAnalysisOutput: Encodable {
    var file: String
    var title: String
    var graph: GraphAnalysis
    var media: MediaReport
}

// MARK: - import

struct ExperiencesImport: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable { case pannellum, marzipano }

    static let configuration = HelpText.command("experiences import")

    @Argument(help: "The tour format: pannellum or marzipano.")
    var format: Format

    @Argument(help: "The tour file (Pannellum JSON or Marzipano data.js).")
    var file: String

    @Option(help: "Title of the experience (4–16 characters); default: the tour's name.")
    var title: String?

    @Option(help: "Description of the experience (at most 128 characters).")
    var description: String?

    @Option(name: .shortAndLong, help: "Write the experience here instead of standard output.")
    var output: String?
    @Flag(help: "Replace the --output file if it exists.") var force = false

    @OptionGroup var quiet: QuietFlag

    func run() throws {
        try NoOverwrite.check(output.map { [$0] } ?? [], force: force, command: "experiences import")
        guard let data = FileManager.default.contents(atPath: file) else {
            throw DossierError(file: file, "cannot read the file")
        }
        var result: ImportResult
        do {
            result = format == .pannellum
                ? try TourImporter.pannellum(data, file: file, title: title)
                : try TourImporter.marzipano(data, file: file, title: title)
        } catch {
            throw DossierError(error.issues.map {
                Diagnostic(.error, file: $0.file, line: $0.line, column: $0.column, $0.message)
            })
        }
        if let description {
            guard description.count <= Rules.descriptionMax else {
                throw ValidationError("--description has \(description.count) characters; "
                                      + "at most \(Rules.descriptionMax) are allowed")
            }
            result.experience.description = description
        }
        for n in result.notes { Stdio.writeError(Data((n.description + "\n").utf8)) }
        let text = Data(result.json.utf8)
        if let output { try writeFileAtomically(text, to: URL(fileURLWithPath: output)) }
        else { Stdio.writeOutput(text) }
    }
}

/// Temp file in the same folder, fsync, rename.
private func writeFileAtomically(_ data: Data, to url: URL) throws {
    try AtomicFile.write(data, to: url)
}
