import ArgumentParser
import DossierKit
import Foundation

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "build", abstract: "Build the site (placeholder).")
    @Argument var project: String = "."
    func run() async throws {}
}
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Check (placeholder).")
    @Argument var project: String = "."
    func run() async throws {}
}
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve (placeholder).")
    @Argument var project: String = "."
    func run() async throws {}
}
struct NewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "new", abstract: "New (placeholder).")
    @Argument var project: String
    func run() async throws {}
}
