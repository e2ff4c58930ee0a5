/// A namespace-resolved XML name: `local` is the part after the prefix, `namespace` the
/// URI bound to the prefix (or the default namespace for an unprefixed element) in scope,
/// `""` when no namespace applies.
public struct XMLName: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var local: String
    public var namespace: String
    /// The name as written (`d:href`).
    public var qualified: String

    public init(local: String, namespace: String = "", qualified: String? = nil) {
        self.local = local
        self.namespace = namespace
        self.qualified = qualified ?? local
    }

    public var description: String { namespace.isEmpty ? local : "{\(namespace)}\(local)" }
}

/// One attribute of a start tag, its value with references expanded and whitespace
/// characters (tab, line feed) turned into spaces as XML 1.0 §3.3.3 requires.
public struct XMLAttribute: Sendable, Equatable {
    public var name: XMLName
    public var value: String
}

/// What ``XMLScanner/next()`` reports, in document order. Comments, processing
/// instructions, the XML declaration and whitespace outside the root element are skipped.
public enum XMLEvent: Sendable, Equatable {
    /// A start tag (an empty-element tag `<a/>` gives `.start` then `.end`). Namespace
    /// declarations (`xmlns`, `xmlns:p`) are not listed among the attributes.
    case start(XMLName, attributes: [XMLAttribute])
    /// Character data with entity and character references expanded. A run of text may
    /// arrive as several events (split at references); concatenate them.
    case text(String)
    /// The content of a `<![CDATA[…]]>` section, as written.
    case cdata(String)
    /// An end tag (or the end of an empty-element tag).
    case end(XMLName)
}

extension [XMLAttribute] {
    /// The value of the attribute named `local` in no namespace (an unprefixed attribute).
    public subscript(local: String) -> String? {
        first { $0.name.local == local && $0.name.namespace.isEmpty }?.value
    }
}

/// A well-formedness error (or a refused construct), with its 1-based line and column
/// (column counted in characters from the start of the line).
public struct XMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line, column: Int
    public var reason: String

    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String { "line \(line), column \(column): \(reason)" }
}
