import ArgumentParser
import DossierKit

/// `dossier archive`: a BagIt bag of the built site, or `--verify` one.
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("archive")

    @Argument(help: "The project folder (holds dossier.yml).")
    var project: String = "."

    @Option(name: .shortAndLong, help: "Where to write the bag: a folder, or a file ending in .zip.")
    var output: String?

    @Flag(help: "Write a .zip (same as an --output ending in .zip).")
    var zip = false

    @OptionGroup var site: SiteFolderOption

    @Option(help: "Bagging-Date (YYYY-MM-DD); default today in UTC, or the day of SOURCE_DATE_EPOCH.")
    var date: String?

    @Flag(help: "Add SHA-512 manifests beside the SHA-256 ones (also `archive: sha512: true` in dossier.yml).")
    var sha512 = false

    @Flag(help: "Replace an existing bag at the output path.")
    var force = false

    @OptionGroup var quiet: QuietFlag

    @Option(
        name: .customLong("verify"),
        help: "Check this bag (folder or .zip; a project folder means its default bag) instead of writing one.")
    var verify: String?

    /// `YYYY-MM-DD` in ASCII digits naming a day of the (proleptic) Gregorian calendar:
    /// month 01–12, day 01 to the month's length (29 February only in a leap year).
    static func looksLikeDay(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 10, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-") else { return false }
        func number(_ r: Range<Int>) -> Int? {
            r.allSatisfy { (48...57).contains(u[$0]) } ? r.reduce(0) { $0 * 10 + Int(u[$1] - 48) } : nil
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m) else {
            return false
        }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        return (1...days).contains(d)
    }

    func validate() throws {
        if let date, !Self.looksLikeDay(date) {
            throw ValidationError("--date must be a calendar day YYYY-MM-DD, like 2026-11-22")
        }
    }

    func run() async throws {
        if let verify {
            let bag = try Self.bagToVerify(verify)
            let shown = bag.path == URL(fileURLWithPath: verify).path ? verify : Project.displayPath(bag)
            let problems = try BagVerifier.verify(bag)
            if problems.isEmpty {
                if !quiet.quiet { print("\(shown): valid bag") }
                return
            }
            throw DossierError(problems.map { Diagnostic($0) })
        }
        let siteURL: URL
        let manifestURL: URL
        var source: String
        var title: String? = nil
        var config = BagInfoConfig()
        if let given = site.given {
            siteURL = given.folder
            manifestURL = given.manifest
            source = siteURL.lastPathComponent
        } else {
            let p = try Project.load(URL(fileURLWithPath: project))
            siteURL = p.output
            manifestURL = p.outputManifestURL
            source = p.root.lastPathComponent
            title = p.title
            config = try BagInfoConfig.load(p)
        }
        if sha512 { config.sha512 = true }
        var dest: URL
        if let output {
            dest = URL(fileURLWithPath: output)
        } else {
            dest = siteURL.deletingLastPathComponent().appendingPathComponent(siteURL.lastPathComponent + "-bag")
        }
        if zip && dest.pathExtension.lowercased() != "zip" { dest = dest.appendingPathExtension("zip") }
        if source.isEmpty { source = "site" }
        let writer = BagWriter(site: siteURL, manifestURL: manifestURL, source: source, description: title,
                               date: date ?? BagWriter.today(), config: config)
        // Not while a build replaces the site's files (docs/output-manifest.md, "One command at a time").
        let siteLock = SiteLock.take(siteURL, .read, command: "archive") { Console.note($0) }
        defer { withExtendedLifetime(siteLock) {} }
        let (files, bytes) = try writer.write(to: dest, overwrite: force)
        if !quiet.quiet { print("wrote \(Project.displayPath(dest)): \(files) payload files, \(bytes) bytes") }
    }
}

extension ArchiveCommand {
    /// What `--verify PATH` checks: PATH itself, or, when PATH is a project folder (it
    /// holds dossier.yml), the bag `dossier archive PATH` writes by default:
    /// `<output>-bag`, else `<output>-bag.zip`.
    static func bagToVerify(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.appendingPathComponent("dossier.yml").path) else { return url }
        let p = try Project.load(url)
        let folder = p.output.deletingLastPathComponent().appendingPathComponent(p.output.lastPathComponent + "-bag")
        let zip = folder.appendingPathExtension("zip")
        if !FileManager.default.fileExists(atPath: folder.path), FileManager.default.fileExists(atPath: zip.path) {
            return zip
        }
        return folder
    }
}

extension Project {
    static func displayPath(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let p = url.standardizedFileURL.path
        return p.hasPrefix(cwd + "/") ? String(p.dropFirst(cwd.count + 1)) : p
    }
}
