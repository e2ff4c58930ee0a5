
/// A YAML value from `dossier.yml` with the line it came from.
///
/// Sections never see the YAML parser: they read their block through ``SectionConfig``.
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

    /// Parses YAML text (one document, read by libyaml and composed by
    /// ``YAMLComposer``); syntax errors become diagnostics with file and line.
    public static func parse(_ text: String, file: String) throws -> ConfigNode {
        try YAMLComposer.compose(text, file: file)
    }
}

/// One `key: value` pair of a YAML mapping.
public struct ConfigEntry: Sendable, Hashable {
    public var key: String
    public var keyLine: Int
    public var value: ConfigNode
}
