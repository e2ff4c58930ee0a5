/// Character classes of XML 1.0 (fifth edition) §2.3 and the scalar decoding the scanner
/// needs on already validated UTF-8.
enum XMLChars {
    /// `S`: space, tab, line feed (carriage returns are gone after ``XMLInput``).
    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A }

    /// The scalar starting at `i` and its length in bytes (the input is valid UTF-8).
    static func scalar(_ s: [UInt8], _ i: Int) -> (UInt32, Int) {
        let b = s[i]
        if b < 0x80 { return (UInt32(b), 1) }
        if b < 0xE0 { return (UInt32(b & 0x1F) << 6 | UInt32(s[i + 1] & 0x3F), 2) }
        if b < 0xF0 { return (UInt32(b & 0x0F) << 12 | UInt32(s[i + 1] & 0x3F) << 6 | UInt32(s[i + 2] & 0x3F), 3) }
        return (
            UInt32(b & 0x07) << 18 | UInt32(s[i + 1] & 0x3F) << 12 | UInt32(s[i + 2] & 0x3F) << 6
                | UInt32(s[i + 3] & 0x3F), 4
        )
    }

    /// `NameStartChar`.
    static func isNameStart(_ c: UInt32) -> Bool {
        switch c {
        case 0x3A, 0x41...0x5A, 0x5F, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D,
             0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF,
             0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF:
            return true
        default: return false
        }
    }

    /// `NameChar`.
    static func isName(_ c: UInt32) -> Bool {
        switch c {
        case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: return true
        default: return isNameStart(c)
        }
    }

    /// `Char` (§2.2) for a character reference.
    static func isChar(_ c: UInt32) -> Bool {
        switch c {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// UTF-8 bytes of a scalar known to be valid.
    static func append(_ c: UInt32, to out: inout [UInt8]) {
        switch c {
        case ..<0x80: out.append(UInt8(c))
        case ..<0x800: out += [UInt8(0xC0 | c >> 6), UInt8(0x80 | c & 0x3F)]
        case ..<0x10000: out += [UInt8(0xE0 | c >> 12), UInt8(0x80 | c >> 6 & 0x3F), UInt8(0x80 | c & 0x3F)]
        default:
            out += [
                UInt8(0xF0 | c >> 18), UInt8(0x80 | c >> 12 & 0x3F), UInt8(0x80 | c >> 6 & 0x3F), UInt8(0x80 | c & 0x3F)
            ]
        }
    }
}

/// The namespace bindings in scope: a stack of URIs per prefix (`""` is the default
/// namespace), undone when the declaring element ends. O(1) lookup.
struct XMLNamespaces {
    static let xml = "http://www.w3.org/XML/1998/namespace"
    static let xmlns = "http://www.w3.org/2000/xmlns/"
    private var bound: [String: [String]] = ["xml": [xml]]

    func uri(_ prefix: String) -> String? { bound[prefix]?.last }
    mutating func push(_ prefix: String, _ uri: String) { bound[prefix, default: []].append(uri) }
    mutating func pop(_ prefix: String) { bound[prefix]?.removeLast() }
}
