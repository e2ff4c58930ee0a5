import ArgumentParser
import DossierKit
#if DOMAIN_RECALL
import RecallStudy
#endif
#if DOMAIN_GAME
import GameAnalytics
#endif

extension Skeleton.Kind: ExpressibleByArgument {}

/// `dossier new PROJECT [--with KIND …]`: a project that builds as it is.
struct NewCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("new")

    @Argument(help: "The folder to create.", completion: .directory)
    var project: String
    @Option(help: "The site title (default: the folder name).")
    var title: String?
    @Option(
        name: .customLong("with"), parsing: .singleValue,
        help: """
            Start the project for this section: \(Skeleton.Kind.allCases.map(\.rawValue).joined(separator: ", ")) \
            (may be repeated).
            """
    )
    var with: [Skeleton.Kind] = []
    @OptionGroup var quiet: QuietFlag

    func run() async throws {
        let url = URL(fileURLWithPath: project)
        var files: [String: Data] = [:]
        var folders: [String] = []
        var next: [String] = []
        for kind in with {
            switch kind {
            case .recallKit:
                #if DOMAIN_RECALL
                files["data/recall/strings.txt"] = Data(StringSet.nistDesktop.fileText.utf8)
                folders.append("data/recall/logs")
                next.append("open \(project)/_site/recall/kit/index.html on the participants' device")
                #endif
            case .experiences:
                folders.append("data/experiences")
                next.append("open \(project)/_site/experiences/editor/index.html to make an experience")
            case .game:
                #if DOMAIN_GAME
                let cohort = Simulator(players: 220, seed: 1).run()
                files["data/game/cohort.jsonl"] = Data(TelemetryJSONL.text(for: cohort).utf8)
                #endif
            case .vault:
                folders.append("data/vault")
                next.insert("dossier vault init \(project)/data/vault/my.dvault", at: 0)
            case .sms:
                folders.append("data/sms")
                next.insert("dossier sms init --account me --keystore \(project)/data/sms/my.keystore", at: 0)
            }
        }
        try Skeleton.create(at: url, title: title, with: with, files: files, folders: folders)
        let steps =
            next.filter { $0.hasPrefix("dossier ") } + ["dossier build \(project)"]
            + next.filter { !$0.hasPrefix("dossier ") }
        quiet.note("Created \(project). Next: " + steps.joined(separator: ", then "))
    }
}
