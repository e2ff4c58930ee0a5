/// Reads JSON text into a ``JSONValue`` (RFC 8259; no ICU, no Foundation): used to put
/// `JSONEncoder` output into Dossier's deterministic form (``JSONOutput``). A number
/// with no `.`, `e` or `E` that fits an `Int` is `.int`, any other number `.double`, as
/// Foundation's `JSONSerialization` typed them before.
public enum JSONRead {
    public struct Failure: Error, Equatable {
        public let offset: Int
    }

    public static func value(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var r = Reader(b: bytes)
        let v = try r.value()
        r.skipSpace()
        guard r.i == bytes.count else { throw Failure(offset: r.i) }
        return v
    }

    struct Reader {
        let b: [UInt8]
        var i = 0

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }

        mutating func value() throws(Failure) -> JSONValue {
            skipSpace()
            guard i < b.count else { throw Failure(offset: i) }
            switch b[i] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try word("true"); return .bool(true)
            case UInt8(ascii: "f"): try word("false"); return .bool(false)
            case UInt8(ascii: "n"): try word("null"); return .null
            default: return try number()
            }
        }

        mutating func word(_ w: String) throws(Failure) {
            for c in w.utf8 {
                guard i < b.count, b[i] == c else { throw Failure(offset: i) }
                i += 1
            }
        }

        mutating func object() throws(Failure) -> JSONValue {
            i += 1
            var out: [String: JSONValue] = [:]
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(out) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw Failure(offset: i) }
                let key = try string()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw Failure(offset: i) }
                i += 1
                out[key] = try value()
                skipSpace()
                guard i < b.count else { throw Failure(offset: i) }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                guard b[i] == UInt8(ascii: "}") else { throw Failure(offset: i) }
                i += 1
                return .object(out)
            }
        }

        mutating func array() throws(Failure) -> JSONValue {
            i += 1
            var out: [JSONValue] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(out) }
            while true {
                out.append(try value())
                skipSpace()
                guard i < b.count else { throw Failure(offset: i) }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                guard b[i] == UInt8(ascii: "]") else { throw Failure(offset: i) }
                i += 1
                return .array(out)
            }
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = i
            var integral = true
            while i < b.count, "+-0123456789.eE".utf8.contains(b[i]) {
                if b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                    integral = false
                }
                i += 1
            }
            let text = String(decoding: b[start..<i], as: UTF8.self)
            if integral, let n = Int(text) { return .int(n) }
            guard let d = Double(text), d.isFinite else { throw Failure(offset: start) }
            return .double(d)
        }

        mutating func string() throws(Failure) -> String {
            i += 1
            var out: [UInt8] = []
            while i < b.count {
                let c = b[i]
                i += 1
                if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                guard c == UInt8(ascii: "\\") else { out.append(c); continue }
                guard i < b.count else { break }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var u = try hex4()
                    if (0xD800..<0xDC00).contains(u), i + 1 < b.count,
                       b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let low = try hex4()
                        u = (0xDC00..<0xE000).contains(low) ? 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
                    }
                    out.append(contentsOf: String(Unicode.Scalar(u) ?? "\u{FFFD}").utf8)
                default: out.append(e)
                }
            }
            throw Failure(offset: i)
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<i + 4], as: UTF8.self), radix: 16) else {
                throw Failure(offset: i)
            }
            i += 4
            return v
        }
    }
}
