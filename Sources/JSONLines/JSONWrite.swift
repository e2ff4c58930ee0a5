// MARK: - The one JSON writer for values built in code (docs/json-lines.md, "Writing")

/// A JSON value to write. Objects are written with their keys in the byte order of
/// their UTF-8, so the same value always gives the same bytes.
public indirect enum JSONOut: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONOut])
    case object([String: JSONOut])

    /// The value written compactly (`{"a":1,"b":[true,null]}`), or with `pretty` in the
    /// layout Foundation's `JSONSerialization` used with `.prettyPrinted`: two spaces
    /// per level, `"key" : value`, an empty list or object as `[`, an empty line and `]`
    /// at the list's indentation. No final newline either way.
    public func written(pretty: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    /// A number's text: an integer in decimal; a double with no fraction below 2^53
    /// without a point (`100`), any other finite double in Swift's shortest round-trip
    /// form (`0.1`, `1e+20`, `1e-07`); NaN and infinities (not JSON) as `null`.
    public static func numberText(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 9_007_199_254_740_992 { return String(Int(d)) }
        return d.description
    }

    private func write(into out: inout [UInt8], pretty: Bool, indent: Int) {
        func newline(_ level: Int) {
            guard pretty else { return }
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: 2 * level))
        }
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let n): out.append(contentsOf: String(n).utf8)
        case .double(let d): out.append(contentsOf: JSONOut.numberText(d).utf8)
        case .string(let s): JSONOut.writeString(s, into: &out)
        case .array(let items):
            out.append(0x5B)
            if items.isEmpty && pretty { out.append(0x0A) }
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(0x2C) }
                newline(indent + 1)
                item.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(indent) }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            if members.isEmpty && pretty { out.append(0x0A) }
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (k, key) in keys.enumerated() {
                if k > 0 { out.append(0x2C) }
                newline(indent + 1)
                JSONOut.writeString(key, into: &out)
                out.append(contentsOf: pretty ? Array(" : ".utf8) : [0x3A])
                members[key]!.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(indent) }
            out.append(0x7D)
        }
    }

    /// `"` + the text with `"` and `\` escaped, `\b \f \n \r \t` for those controls,
    /// `\u00xx` (lower-case hex) for the other bytes below 0x20, everything else (`/`,
    /// DEL, non-ASCII) as its UTF-8 + `"`.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x08: out.append(contentsOf: [0x5C, 0x62])
            case 0x0C: out.append(contentsOf: [0x5C, 0x66])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20: out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }
}

/// A JSON value made from the tree ``JSONReader`` reads, by ``init(_:)``: this module's
/// ``JSONOut`` and the renderer's `JSONValue`, whose seven cases are the requirements.
public protocol JSONTreeValue {
    static var null: Self { get }
    static func bool(_ b: Bool) -> Self
    static func int(_ n: Int) -> Self
    static func double(_ d: Double) -> Self
    static func string(_ s: String) -> Self
    static func array(_ items: [Self]) -> Self
    static func object(_ members: [String: Self]) -> Self
}

extension JSONTreeValue {
    /// A value read by ``JSONReader`` (lines dropped; an object's members are unique).
    @inlinable
    public init(_ node: JNode) {
        switch node {
        case .object(let m, _):
            self = .object(Dictionary(m.map { ($0.key, Self($0.value)) }, uniquingKeysWith: { a, _ in a }))
        case .array(let a, _): self = .array(a.map(Self.init))
        case .string(let s, _): self = .string(s)
        case .number(let d, _): self = .double(d)
        case .integer(let n, _): self = .int(n)
        case .bool(let b, _): self = .bool(b)
        case .null: self = .null
        }
    }
}

extension JSONOut: JSONTreeValue {}
