import ArgumentParser
import DossierKit
import SecureSMS

/// `dossier sms …`: the SecureSMS tools.
struct SMSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sms",
        abstract: "SecureSMS keystore tools (not implemented yet).",
        subcommands: []
    )
}
