import ArgumentParser
import DossierKit
import GameAnalytics

/// `dossier game …`: the GameAnalytics tools.
struct GameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "game",
        abstract: "Game analytics tools (not implemented yet).",
        subcommands: []
    )
}
