import ArgumentParser
import DossierKit
import TextBasics

/// `dossier`: argument parsing and nothing else. Every command's work lives in
/// DossierKit or a domain module; errors are printed as `file:line: message`.
@main
struct Dossier: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        var subs: [any ParsableCommand.Type] = [BuildCommand.self, CheckCommand.self, ServeCommand.self,
                                                NewCommand.self]
        #if DOMAIN_RECALL
        subs.append(RecallCommand.self)
        #endif
        #if DOMAIN_EXPERIENCES
        subs.append(ExperiencesCommand.self)
        #endif
        #if DOMAIN_VAULT
        subs.append(VaultCommand.self)
        #endif
        #if DOMAIN_SMS
        subs.append(SMSCommand.self)
        #endif
        #if DOMAIN_GAME
        subs.append(GameCommand.self)
        #endif
        subs.append(contentsOf: extraCommands)
        subs.append(VersionCommand.self)
        let help = HelpText.parts("dossier")
        return CommandConfiguration(
            commandName: "dossier",
            abstract: help.abstract,
            discussion: help.discussion,
            version: DossierVersion.string,
            subcommands: subs
        )
    }

    /// Commands added by stages other than the domains (publish, archive).
    static var extraCommands: [any ParsableCommand.Type] { ExtraCommands.all }

    /// The words after `dossier` that name command type `t` (`sms contact add`).
    static func words(of t: any ParsableCommand.Type, under root: any ParsableCommand.Type = Dossier.self,
                      prefix: [String] = []) -> String? {
        for sub in root.configuration.subcommands {
            let name = sub.configuration.commandName ?? sub._commandName
            if sub == t { return (prefix + [name]).joined(separator: " ") }
            if let found = words(of: t, under: sub, prefix: prefix + [name]) { return found }
        }
        return nil
    }

    static func main() async {
        let args = OptionAliases.canonical(Array(CommandLine.arguments.dropFirst()))
        if args.count == 2, args[0] == "markdown", !args[1].hasPrefix("-") {
            do { try MarkdownCommand.render(file: args[1]) } catch {
                Console.error(error as? DossierError ?? DossierError(file: args[1], "\(error)"))
                Glibc.exit(1)
            }
            return
        }
        if let message = Suggestions.unknownCommand(Dossier.self, args) {
            Stdio.writeError(Data((message + "\n").utf8))
            Glibc.exit(2)
        }
        do {
            var command = try parseAsRoot(args)
            CommandLock.currentCommand = Self.words(of: type(of: command)) ?? "dossier"
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch let error as DossierError {
            Console.error(error)
            Glibc.exit(1)
        } catch let error where FileSystemErrors.describe(error) != nil {
            // A file-system error no command put in words (a full disk under a copy, say):
            // its path and what to do, never the raw error.
            Console.error(FileSystemErrors.describe(error)!)
            Glibc.exit(1)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }
            // Usage errors exit with 2 (ArgumentParser's default is 64).
            var message = fullMessage(for: error)
            if !message.contains("Did you mean"), let hint = Suggestions.unknownOption(Dossier.self, args,
                    message: message) {
                message = message.replacingAll("\nUsage:", with: "\n\(hint)\nUsage:")
                if !message.contains(hint) { message += "\n" + hint }
            }
            if code == .validationFailure {
                Stdio.writeError(Data((message + "\n").utf8))
                Glibc.exit(2)
            }
            if code.rawValue == 1 || error is ExitCode {
                if !message.isEmpty { Stdio.writeError(Data((message + "\n").utf8)) }
                Glibc.exit(code.rawValue)
            }
            Console.error(DossierError(error.diagnostics))
            Glibc.exit(1)
        }
    }
}
