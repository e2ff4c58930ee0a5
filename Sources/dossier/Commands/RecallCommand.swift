import ArgumentParser
import DossierKit
import RecallStudy

/// `dossier recall …`: the RecallStudy tools.
struct RecallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recall",
        abstract: "Memorization study tools (not implemented yet).",
        subcommands: []
    )
}
