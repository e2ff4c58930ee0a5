import ArgumentParser
import DossierKit
import Foundation
import Render

/// `dossier markdown FILE`: renders one Markdown file to HTML on standard output exactly
/// as content pages are rendered (GFM extensions, safe mode, heading anchors), with no
/// front matter handling, layout or site. Hidden: it exists so the benchmarks can time
/// Dossier's Markdown renderer against the `cmark-gfm` command on the same file.
struct MarkdownCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markdown",
        abstract: "Render a Markdown file to HTML on standard output (for benchmarks).",
        discussion: """
        Example:
          dossier markdown big.md > big.html
        """,
        shouldDisplay: false)

    @Argument(help: "The Markdown file to render.", completion: .file())
    var file: String
    @Flag(help: "Keep raw HTML (as `markdown: {unsafe: true}` in dossier.yml).")
    var unsafe = false
    @Flag(help: "Curly quotes and dashes (as `markdown: {smart: true}`).")
    var smart = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw DossierError(file: file, "cannot read file")
        }
        let html = Markdown.render(String(decoding: data, as: UTF8.self),
                                   options: MarkdownOptions(unsafeHTML: unsafe, smartPunctuation: smart)).html
        FileHandle.standardOutput.write(Data(html.utf8))
    }
}
