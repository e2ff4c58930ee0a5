import ArgumentParser

/// Commands of the publishing stage (`publish`, `archive`), registered here so the root
/// command file stays the same when they are added.
enum ExtraCommands {
    static var all: [any ParsableCommand.Type] {
        [PublishCommand.self, ArchiveCommand.self, MarkdownCommand.self, DbCommand.self]
    }
}
