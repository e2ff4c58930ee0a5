#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

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
}

/// What the renderer reads a name from. A page's model is a ``TemplateRecord``, whose
/// fields are listed in one table; the page context around it (`root`, `site`) is a
/// plain ``TemplateModel``.
public protocol TemplateModel {
    /// The field `name`, or nil when this model has no such field (the renderer then
    /// looks in the enclosing contexts, as Mustache does).
    func value(_ name: String) -> TemplateValue?
}

extension TemplateValue {
    /// A list of models.
    public static func list<M: TemplateModel>(of models: [M]) -> TemplateValue { .list(models.map { .object($0) }) }
}
