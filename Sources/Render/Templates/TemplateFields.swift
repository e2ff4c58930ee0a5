/// A page model whose fields are listed once, in a table: each field's name, what kind of
/// value it gives and how it is read. The renderer reads a field through the table
/// (``TemplateModel/value(_:)``); ``TemplateFieldCheck`` reads the same table to check a
/// template against its model without rendering it (every name a template reads must be
/// a field, every field must be read by a template).
///
/// ```swift
/// struct Crumb: TemplateRecord {
///     var title: String, href: String?
///     static let fields = TemplateFields<Crumb>([
///         .text("title") { $0.title },
///         .maybeText("href") { $0.href },
///     ])
/// }
/// ```
public protocol TemplateRecord: TemplateModel, SendableMetatype {
    static var fields: TemplateFields<Self> { get }
}

extension TemplateRecord {
    /// (Inlinable, so each model's conformance in another module reads its table through
    /// code specialised for it: unspecialised, every field read made the closure's type
    /// metadata again, a third of a page's template rendering.)
    @inlinable @inline(__always)
    public func value(_ name: String) -> TemplateValue? { Self.fields.value(name, of: self) }

    /// ``value(_:)`` by the name's number (``TemplateNames``).
    @inlinable @inline(__always)
    public func value(id: Int, name: String) -> TemplateValue? { Self.fields.value(id: id, of: self) }

    /// The fields' names and kinds, for ``TemplateFieldCheck``.
    public static var schema: TemplateSchema { fields.schema }
}

/// The field table of one model type.
public struct TemplateFields<Model>: Sendable {
    @usableFromInline let readers: [String: @Sendable (Model) -> TemplateValue?]
    /// The fields' numbers (``TemplateNames``) and, at the same index, their readers.
    @usableFromInline let ids: [Int]
    @usableFromInline let readersInOrder: [@Sendable (Model) -> TemplateValue?]
    public let schema: TemplateSchema

    /// `fields` in the order a reader expects them; two fields of one name are a
    /// programming error.
    public init(_ fields: [TemplateField<Model>]) {
        var readers: [String: @Sendable (Model) -> TemplateValue?] = [:]
        for field in fields {
            precondition(readers[field.name] == nil, "\(Model.self) lists the field \(field.name) twice")
            readers[field.name] = field.read
        }
        self.readers = readers
        ids = fields.map { TemplateNames.id($0.name) }
        readersInOrder = fields.map(\.read)
        schema = TemplateSchema(type: String(reflecting: Model.self), fields: fields.map {
            TemplateSchema.Field(name: $0.name, kind: $0.kind, forOwnTemplates: $0.keptForOwnTemplates)
        })
    }

    @inlinable @inline(__always)
    func value(_ name: String, of model: Model) -> TemplateValue? { readers[name]?(model) }

    /// The field numbered `id`: a scan of a few small numbers.
    @inlinable @inline(__always)
    func value(id: Int, of model: Model) -> TemplateValue? {
        for k in ids.indices where ids[k] == id { return readersInOrder[k](model) }
        return nil
    }
}

/// What a field gives a template: `{{x}}` writes a text (`.text`); `{{#x}}` renders once
/// for a true flag, once per item of a list and once with an object or a text on top.
public indirect enum TemplateFieldKind: Sendable {
    case text
    case bool
    case object(@Sendable () -> TemplateSchema)
    case list(TemplateFieldKind)
}

/// The fields of one model type, by name, as ``TemplateFieldCheck`` sees them.
public struct TemplateSchema: Sendable {
    /// The model type's full name (`DossierKit.VaultPage.Row`).
    public let type: String
    public let fields: [Field]

    public struct Field: Sendable {
        public var name: String
        public var kind: TemplateFieldKind
        /// Kept for a project's own templates (documented, read by no built-in template).
        public var forOwnTemplates: Bool

        public init(name: String, kind: TemplateFieldKind, forOwnTemplates: Bool = false) {
            self.name = name
            self.kind = kind
            self.forOwnTemplates = forOwnTemplates
        }
    }

    public init(type: String, fields: [Field]) {
        self.type = type
        self.fields = fields
    }

    func kind(of name: String) -> TemplateFieldKind? { fields.first { $0.name == name }?.kind }
}

/// One entry of a ``TemplateFields`` table. A `maybe…` field that reads nil is absent:
/// the renderer then looks for the name in the enclosing contexts (a row without a link
/// falls back to nothing, as a missing key did).
public struct TemplateField<Model>: Sendable {
    let name: String
    let kind: TemplateFieldKind
    let read: @Sendable (Model) -> TemplateValue?
    var keptForOwnTemplates = false

    /// This field, marked as kept for a project's own templates (docs/manifest.md,
    /// "Templates"): no built-in template reads it, and ``TemplateFieldCheck`` allows that.
    public func forOwnTemplates() -> Self {
        var field = self
        field.keptForOwnTemplates = true
        return field
    }

    public init(_ name: String, _ kind: TemplateFieldKind, read: @escaping @Sendable (Model) -> TemplateValue?) {
        self.name = name
        self.kind = kind
        self.read = read
    }

    public static func text(_ name: String, _ read: @escaping @Sendable (Model) -> String) -> Self {
        Self(name, .text) { .text(read($0)) }
    }

    public static func maybeText(_ name: String, _ read: @escaping @Sendable (Model) -> String?) -> Self {
        Self(name, .text) { read($0).map { .text($0) } }
    }

    /// A whole number, written in decimal.
    public static func int(_ name: String, _ read: @escaping @Sendable (Model) -> Int) -> Self {
        Self(name, .text) { .text(String(read($0))) }
    }

    public static func bool(_ name: String, _ read: @escaping @Sendable (Model) -> Bool) -> Self {
        Self(name, .bool) { .bool(read($0)) }
    }

    public static func object<R: TemplateRecord>(_ name: String, _ type: R.Type,
                                                 _ read: @escaping @Sendable (Model) -> R) -> Self {
        Self(name, .object { R.schema }) { .object(read($0)) }
    }

    public static func maybeObject<R: TemplateRecord>(_ name: String, _ type: R.Type,
                                                      _ read: @escaping @Sendable (Model) -> R?) -> Self {
        Self(name, .object { R.schema }) { read($0).map { .object($0) } }
    }

    public static func list<R: TemplateRecord>(_ name: String, _ type: R.Type,
                                              _ read: @escaping @Sendable (Model) -> [R]) -> Self {
        Self(name, .list(.object { R.schema })) { .list(of: read($0)) }
    }

    /// A list of texts (`{{#x}}{{.}}{{/x}}`).
    public static func texts(_ name: String, _ read: @escaping @Sendable (Model) -> [String]) -> Self {
        Self(name, .list(.text)) { .list(read($0).map { .text($0) }) }
    }
}
