import ArgumentParser
import DossierKit
import Vault

/// `dossier vault …`: the Vault tools.
struct VaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Vault health tools (not implemented yet).",
        subcommands: []
    )
}
