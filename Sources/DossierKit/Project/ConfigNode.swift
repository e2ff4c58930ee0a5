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

    /// Every scalar value in this node (for the output folder's overlap check).
    public var scalars: [String] {
        switch self {
        case .scalar(let s, _): return [s]
        case .null: return []
        case .list(let items, _): return items.flatMap(\.scalars)
        case .map(let entries, _): return entries.flatMap(\.value.scalars)
        }
    }

    /// At most this many values after alias expansion: a YAML alias refers to a whole
    /// subtree, so a few hundred bytes of nested aliases ("billion laughs") can stand
    /// for billions of values. Real manifests and front matter hold hundreds.
    public static let maxValues = 100_000

    /// Converts a composed document, counting every value it stands for (aliases
    /// expanded) and stopping at ``maxValues`` with an error at the line reached.
    static func convert(_ node: Node, file: String, budget: inout Int) throws -> ConfigNode {
        budget -= 1
        let line = node.mark?.line ?? 0
        if budget < 0 {
            throw DossierError(
                file: file, line: line, "YAML aliases expand to more than \(maxValues) values (refused: an alias bomb?)"
            )
        }
        switch node {
        case .scalar(let s):
            if s.tag.description == "tag:yaml.org,2002:null"
                || (s.style == .plain && ["", "~", "null", "Null", "NULL"].contains(s.string))
            {
                return .null(line: line)
            }
            return .scalar(s.string, line: line)
        case .sequence(let seq):
            var items: [ConfigNode] = []
            for item in seq { items.append(try convert(item, file: file, budget: &budget)) }
            return .list(items, line: line)
        case .mapping(let m):
            var entries: [ConfigEntry] = []
            for (k, v) in m {
                budget -= 1
                entries.append(
                    ConfigEntry(
                        key: k.string ?? "", keyLine: k.mark?.line ?? line,
                        value: try convert(v, file: file, budget: &budget)))
            }
            return .map(entries, line: line)
        case .alias:
            return .null(line: line)
        }
    }

    /// Parses YAML text; syntax errors become diagnostics with file and line.
    public static func parse(_ text: String, file: String) throws -> ConfigNode {
        do {
            guard let node = try Yams.compose(yaml: text, .default, .default, .utf8) else { return .map([], line: 1) }
            var budget = maxValues
            return try convert(node, file: file, budget: &budget)
        } catch let error as YamlError {
            switch error {
            case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
                .composer(_, let problem, let mark, _):
                throw DossierError(file: file, line: mark.line, "invalid YAML: \(problem)")
            case .duplicatedKeysInMapping(let dups, let ctx):
                // Yams marks the first of the keys; the error belongs to the repeat.
                let key = dups.first ?? ""
                let at = KeySuggestion.duplicateLine(in: text, key: key, line: ctx.mark.line, column: ctx.mark.column)
                throw DossierError(
                    file: file, line: at ?? ctx.mark.line,
                    "duplicate key '\(key)' (first at line \(ctx.mark.line))"
                        + (dups.count > 1 ? "; also repeated: \(dups.dropFirst().joined(separator: ", "))" : ""))
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
