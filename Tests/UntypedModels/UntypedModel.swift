import Foundation
import Render

// Untyped template models, for tests only: the reference twins that render a template
// with a dictionary (the engine against swift-mustache, a page against the dictionary
// model it replaced). Pages cannot use them: `Page` takes a `TemplateRecord`.

extension TemplateValue {
    /// `String` → text, `Bool` → flag, a dictionary → object, arrays → lists, `nil` or
    /// `NSNull` → null, a ``TemplateModel`` or ``TemplateValue`` as is, anything else
    /// (numbers) → its `String(describing:)` text — as swift-mustache reads the same values.
    public init(untyped value: Any) {
        switch value {
        case let text as String: self = .text(text)
        case let flag as Bool: self = .bool(flag)
        case let templateValue as TemplateValue: self = templateValue
        case let dictionary as [String: Any]: self = .object(dictionary)
        case let array as [Any]: self = .list(array.map(TemplateValue.init(untyped:)))
        case let model as any TemplateModel: self = .object(model)
        case is NSNull: self = .null
        case let optional as any OptionalValue:
            self = optional.wrappedValue.map(TemplateValue.init(untyped:)) ?? .null
        default: self = .text(String(describing: value))
        }
    }
}

/// A dictionary as a template model: each field converted when the template asks for it.
extension Dictionary: TemplateModel where Key == String, Value == Any {
    public func value(_ name: String) -> TemplateValue? { self[name].map(TemplateValue.init(untyped:)) }
}

/// Lets ``TemplateValue/init(untyped:)`` see through an `Optional` stored as `Any`.
public protocol OptionalValue { var wrappedValue: Any? { get } }
extension Optional: OptionalValue { public var wrappedValue: Any? { self.map { $0 as Any } } }
