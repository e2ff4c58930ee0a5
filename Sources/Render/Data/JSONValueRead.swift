import JSONLines
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONValue {
    /// JSON text as a value, read by the one JSON reader (``JSONReader``, strict RFC 8259:
    /// docs/json-lines.md): a number written without `.`, `e` or `E` that fits an `Int`
    /// is `.int`, any other number `.double`, as Foundation's `JSONSerialization` typed
    /// them before.
    public static func read(_ data: Data) throws -> JSONValue {
        JSONValue(try JSONReader.document(data, file: "JSON", integers: true))
    }

    init(_ node: JNode) {
        switch node {
        case .object(let m, _):
            self = .object(Dictionary(m.map { ($0.key, JSONValue($0.value)) }, uniquingKeysWith: { a, _ in a }))
        case .array(let a, _): self = .array(a.map(JSONValue.init))
        case .string(let s, _): self = .string(s)
        case .number(let d, _): self = .double(d)
        case .integer(let n, _): self = .int(n)
        case .bool(let b, _): self = .bool(b)
        case .null: self = .null
        }
    }
}
