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
}

/// Made from a ``JNode`` by ``JSONTreeValue/init(_:)``, as ``JSONOut`` is.
extension JSONValue: JSONTreeValue {}
