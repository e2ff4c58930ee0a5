import ArgumentParser
import DossierKit
import Experiences

/// `dossier experiences …`: the Experiences tools.
struct ExperiencesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiences",
        abstract: "Experiences tools (not implemented yet).",
        subcommands: []
    )
}
