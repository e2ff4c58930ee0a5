import JSONLines

/// Reading an export's JSON (read by the one reader, ``JSONReader``) the way the
/// importers read Foundation's `JSONSerialization` objects before: a field of the wrong
/// type counts as missing, and numbers and booleans convert as `NSNumber` converted
/// them (`VaultTests/JSONFieldsTests` compares each with `NSNumber`).
extension JNode {
    /// The member `key` as text.
    func text(_ key: String) -> String? { self[key]?.stringValue }

    /// The member `key` when it is an object.
    func object(_ key: String) -> JNode? { self[key].flatMap { $0.members != nil ? $0 : nil } }

    /// The member `key` when it is a list of objects only (else empty, as a failed
    /// `as? [[String: Any]]` gave).
    func objects(_ key: String) -> [JNode] {
        guard let items = self[key]?.items, items.allSatisfy({ $0.members != nil }) else { return [] }
        return items
    }

    /// `NSNumber as? Int`: an integer; a double with no fraction that fits; `true` 1,
    /// `false` 0.
    var looseInt: Int? {
        switch self {
        case .integer(let n, _): return n
        case .number(let d, _):
            return d == d.rounded() && abs(d) < 9_223_372_036_854_775_807 ? Int(d) : nil
        case .bool(let b, _): return b ? 1 : 0
        default: return nil
        }
    }

    /// `NSNumber as? Double`: any double; an integer a double holds exactly; `true` 1,
    /// `false` 0.
    var looseDouble: Double? {
        switch self {
        case .bool(let b, _): return b ? 1 : 0
        case .integer(let n, _): return Double(exactly: n)
        default: return numberValue
        }
    }

    /// `NSNumber as? Bool`: `true`, `false`, and the numbers 1 and 0.
    var looseBool: Bool? {
        switch self {
        case .bool(let b, _): return b
        case .integer, .number: return looseDouble == 1 ? true : looseDouble == 0 ? false : nil
        default: return nil
        }
    }

    /// `NSNumber.stringValue`: an integer in decimal, a double as Swift writes it
    /// (`1.0`, `1e+20`), `true` "1", `false` "0"; nil for anything else.
    var numberText: String? {
        switch self {
        case .integer(let n, _): return String(n)
        case .number(let d, _): return d.description
        case .bool(let b, _): return b ? "1" : "0"
        default: return nil
        }
    }
}
