import Foundation
import Yams

/// A YAML value from `dossier.yml` with the line it came from.
///
/// Sections never see Yams: they read their block through ``SectionConfig``.
public indirect enum ConfigNode: Sendable, Hashable {
    case scalar(String, line: Int)
    case list([ConfigNode], line: Int)
    case map([ConfigEntry], line: Int)
    case null(line: Int)

    public var line: Int {
        switch self {
        case .scalar(_, let l), .list(_, let l), .map(_, let l), .null(let l): return l
        }
    }

    /// A stable text form, used to hash a section's configuration.
    public var canonical: String {
        switch self {
        case .scalar(let s, _): return "s:" + s.debugDescription
        case .null: return "~"
        case .list(let items, _): return "[" + items.map(\.canonical).joined(separator: ",") + "]"
        case .map(let entries, _):
            return "{" + entries.map { $0.key.debugDescription + ":" + $0.value.canonical }.joined(separator: ",") + "}"
        }
    }

    init(yams node: Node) {
        let line = node.mark?.line ?? 0
        switch node {
        case .scalar(let s):
            if s.tag.description == "tag:yaml.org,2002:null" || (s.style == .plain && ["", "~", "null", "Null", "NULL"].contains(s.string)) {
                self = .null(line: line)
            } else {
                self = .scalar(s.string, line: line)
            }
        case .sequence(let seq):
            self = .list(seq.map { ConfigNode(yams: $0) }, line: line)
        case .mapping(let m):
            self = .map(m.map { ConfigEntry(key: $0.key.string ?? "", keyLine: $0.key.mark?.line ?? line, value: ConfigNode(yams: $0.value)) }, line: line)
        case .alias:
            self = .null(line: line)
        }
    }

    /// Parses YAML text; syntax errors become diagnostics with file and line.
    public static func parse(_ text: String, file: String) throws -> ConfigNode {
        do {
            guard let node = try Yams.compose(yaml: text, .default, .default, .utf8) else { return .map([], line: 1) }
            return ConfigNode(yams: node)
        } catch let error as YamlError {
            switch error {
            case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
                throw DossierError(file: file, line: mark.line, "invalid YAML: \(problem)")
            case .duplicatedKeysInMapping(let dups, let ctx):
                throw DossierError(file: file, line: ctx.mark.line, "duplicate key \(dups.joined(separator: ", "))")
            default:
                throw DossierError(file: file, "invalid YAML: \(error)")
            }
        }
    }
}

/// One `key: value` pair of a YAML mapping.
public struct ConfigEntry: Sendable, Hashable {
    public var key: String
    public var keyLine: Int
    public var value: ConfigNode
}
