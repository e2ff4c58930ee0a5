import ArgumentParser
import DossierKit

/// `dossier vault sync`: placeholder until the publish/sync issue lands (owned by it).
struct VaultSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Sync the vault with a WebDAV server (not implemented yet).")
    func run() async throws { throw DossierError("vault sync is not implemented yet") }
}
