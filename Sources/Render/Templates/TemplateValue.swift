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

/// A template's model: a Swift type that names its fields in one place and hands each
/// to the renderer as a ``TemplateValue`` — no casting while a page renders.
///
/// ```swift
/// struct Crumb: TemplateModel {
///     var title: String, href: String?
///     func value(_ name: String) -> TemplateValue? {
///         switch name {
///         case "title": .text(title)
///         case "href": href.map { .text($0) }
///         default: nil
///         }
///     }
/// }
/// ```
public protocol TemplateModel {
    /// The field `name`, or nil when this model has no such field (the renderer then
    /// looks in the enclosing contexts, as Mustache does).
    func value(_ name: String) -> TemplateValue?
}

extension TemplateValue {
    /// A list of models.
    public static func list<M: TemplateModel>(of models: [M]) -> TemplateValue { .list(models.map { .object($0) }) }

    /// Converts an untyped value (the compatibility path for `[String: Any]` models):
    /// `String` → text, `Bool` → flag, `[String: Any]` → object, arrays → lists,
    /// `nil`/`NSNull` → null, a ``TemplateModel`` or ``TemplateValue`` as is, anything
    /// else (numbers) → its `String(describing:)` text.
    public init(any value: Any) {
        switch value {
        case let s as String: self = .text(s)
        case let b as Bool: self = .bool(b)
        case let v as TemplateValue: self = v
        case let d as [String: Any]: self = .object(d)
        case let a as [Any]: self = .list(a.map(TemplateValue.init(any:)))
        case let m as any TemplateModel: self = .object(m)
        case _ where "\(type(of: value))" == "NSNull": self = .null   // without linking NSNull
        case let o as any OptionalValue: self = o.wrappedValue.map(TemplateValue.init(any:)) ?? .null
        default: self = .text(String(describing: value))
        }
    }
}

/// `[String: Any]` models (section pages) are read through the compatibility path:
/// each field is converted when the template asks for it.
extension Dictionary: TemplateModel where Key == String, Value == Any {
    public func value(_ name: String) -> TemplateValue? { self[name].map(TemplateValue.init(any:)) }
}

/// Lets ``TemplateValue/init(any:)`` see through an `Optional` stored as `Any`.
protocol OptionalValue { var wrappedValue: Any? { get } }
extension Optional: OptionalValue { var wrappedValue: Any? { self.map { $0 as Any } } }
