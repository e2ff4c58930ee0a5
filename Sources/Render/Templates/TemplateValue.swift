#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// What a template sees: text, a flag, a list or an object with named fields.
///
/// Mustache meaning (docs/manifest.md, "Templates"):
/// - `{{x}}` writes `.text` HTML-escaped (`{{{x}}}` unescaped), `.bool` as `true`/`false`,
///   and nothing for `.list`, `.object` and `.null`;
/// - `{{#x}}…{{/x}}` renders once per item of a `.list`, once when `.bool(true)`, never for
///   `.bool(false)`, `.null` or a missing name, and once with the value on top of the
///   context for `.text` (even empty) and `.object`; `{{^x}}` renders exactly when `{{#x}}`
///   would not (an empty list counts as "would not").
public enum TemplateValue {
    case text(String)
    case bool(Bool)
    case list([TemplateValue])
    case object(any TemplateModel)
    /// Present but empty: stops the look-up of a name in outer contexts, renders nothing.
    case null

    /// A field of this value (only objects have fields).
    @inline(__always)
    func field(_ name: String) -> TemplateValue? {
        if case .object(let model) = self { return model.value(name) }
        return nil
    }

    /// ``field(_:)`` of the name numbered `id` (``TemplateNames``), which is `name`.
    @inline(__always)
    func field(id: Int, _ name: String) -> TemplateValue? {
        if case .object(let model) = self { return model.value(id: id, name: name) }
        return nil
    }
}

/// What the renderer reads a name from. A page's model is a ``TemplateRecord``, whose
/// fields are listed in one table; the page context around it (`root`, `site`) is a
/// plain ``TemplateModel``.
public protocol TemplateModel {
    /// The field `name`, or nil when this model has no such field (the renderer then
    /// looks in the enclosing contexts, as Mustache does).
    func value(_ name: String) -> TemplateValue?

    /// ``value(_:)`` of `name`, numbered `id` by ``TemplateNames``: a model with a field
    /// table finds the field by its number (no hashing of the name); any other reads
    /// `value(name)`.
    func value(id: Int, name: String) -> TemplateValue?
}

extension TemplateModel {
    public func value(id: Int, name: String) -> TemplateValue? { value(name) }
}

/// Every name a template reads or a field table lists, numbered once per process: the
/// parser gives each name of a tag its number, each ``TemplateFields`` table each of its
/// fields', so the renderer finds a field by comparing small numbers, where it hashed
/// the name into a dictionary per tag and context level (most of a page's template
/// rendering, docs/perf-pages.md).
public enum TemplateNames {
    private final class Table: @unchecked Sendable {
        let lock = PlainLock()
        var ids: [String: Int] = [:]
    }
    private static let table = Table()

    /// The number of `name` (the same for the same name, different for different names).
    public static func id(_ name: String) -> Int {
        table.lock.lock(); defer { table.lock.unlock() }
        if let id = table.ids[name] { return id }
        let id = table.ids.count
        table.ids[name] = id
        return id
    }
}

extension TemplateValue {
    /// A list of models.
    public static func list<M: TemplateModel>(of models: [M]) -> TemplateValue { .list(models.map { .object($0) }) }
}
