#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// The `archive:` block of `dossier.yml`: Bag-Info fields archivists fill, and whether
/// bags carry a SHA-512 manifest beside the SHA-256 one (docs/archive.md).
///
/// ```yaml
/// archive:
///   source_organization: University of Somewhere, Memory Lab
///   contact_name: Jo Doe
///   contact_email: jo@example.org
///   external_identifier: memory-2026-wave-1
///   bag_group_identifier: memory-2026
///   sha512: true
/// ```
public struct BagInfoConfig: Sendable, Equatable {
    /// bag-info.txt labels, in the order written, with their `dossier.yml` keys.
    public static let fields: [(key: String, label: String)] = [
        ("source_organization", "Source-Organization"),
        ("contact_name", "Contact-Name"),
        ("contact_email", "Contact-Email"),
        ("external_identifier", "External-Identifier"),
        ("bag_group_identifier", "Bag-Group-Identifier"),
    ]

    /// (label, value) pairs that are set, in ``fields`` order.
    public var info: [(String, String)] = []
    /// Also write manifest-sha512.txt and tagmanifest-sha512.txt.
    public var sha512 = false

    public init(info: [(String, String)] = [], sha512: Bool = false) {
        self.info = info
        self.sha512 = sha512
    }

    public static func == (a: BagInfoConfig, b: BagInfoConfig) -> Bool {
        a.sha512 == b.sha512 && a.info.map { "\($0.0)\u{0}\($0.1)" } == b.info.map { "\($0.0)\u{0}\($0.1)" }
    }

    /// Reads the `archive` block of a project's `dossier.yml` (absent: no fields, no
    /// SHA-512). Unknown keys, values that are not one line of text, and a
    /// `contact_email` without `@` are errors with file and line.
    public static func load(_ project: Project) throws -> BagInfoConfig {
        let shown = SitePaths.display(project.manifestURL)
        guard let data = FileManager.default.contents(atPath: project.manifestURL.path),
              let text = String(data: data, encoding: .utf8) else { return BagInfoConfig() }
        let top = SectionConfig(key: "", file: shown, root: project.root, node: try ConfigNode.parse(text, file: shown))
        guard let node = top.value("archive") else { return BagInfoConfig() }
        let block = SectionConfig(key: "archive", file: shown, root: project.root, node: node)
        var config = BagInfoConfig()
        for (key, label) in fields {
            guard let value = try block.string(key) else { continue }
            let v = value.trimmingWhitespace()
            if v.isEmpty || v.contains(where: { $0.isNewline }) {
                throw block.error(key, "must be one line of text")
            }
            if key == "contact_email" && (!v.contains("@") || v.contains(" ")) {
                throw block.error(key, "'\(v)' is not an e-mail address")
            }
            config.info.append((label, v))
        }
        config.sha512 = try block.bool("sha512", default: false)
        if let bad = block.unknownKeys().first {
            throw DossierError(file: shown, line: bad.keyLine,
                               "archive: " + KeySuggestion.unknownKey(bad.key, known: fields.map(\.key) + ["sha512"]))
        }
        return config
    }

    /// `Bag-Size`: the payload size in decimal units, one decimal (`812 bytes`, `12.3 kB`,
    /// `4.0 MB`, `1.2 GB`, `3.5 TB`).
    public static func humanSize(_ octets: Int64) -> String {
        if octets < 1000 { return "\(octets) byte\(octets == 1 ? "" : "s")" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(octets) / 1000
        var i = 0
        while value >= 999.95 && i < units.count - 1 {
            value /= 1000
            i += 1
        }
        return cFormat("%.1f", value) + " " + units[i]
    }
}
