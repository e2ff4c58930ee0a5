/// The input pass before scanning: the byte-order mark is dropped, line endings are
/// normalised (CR LF and a lone CR become LF, XML 1.0 §2.11), and every character is
/// checked to be valid UTF-8 and an XML `Char` (§2.2): tab, LF, CR, U+0020–U+D7FF,
/// U+E000–U+FFFD, U+10000–U+10FFFF. Linear time, one pass.
enum XMLInput {
    static func prepare<Bytes: Collection<UInt8>>(_ input: Bytes) throws(XMLError) -> [UInt8] {
        var src = Array(input)
        var out = [UInt8]()
        out.reserveCapacity(src.count)
        var i = 0
        if src.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        if src.starts(with: [0xFE, 0xFF]) || src.starts(with: [0xFF, 0xFE])
            || (src.count >= 2 && (src[0] == 0 || src[1] == 0))
        {
            throw XMLError(line: 1, column: 1, reason: "the document is UTF-16 or UTF-32; only UTF-8 is read")
        }
        let n = src.count
        while i < n {
            let b = src[i]
            if b < 0x80 {
                if b == 0x0D {
                    out.append(0x0A)
                    i += (i + 1 < n && src[i + 1] == 0x0A) ? 2 : 1
                    continue
                }
                if b < 0x20 && b != 0x09 && b != 0x0A {
                    throw fail(out, "character U+\(hex(UInt32(b))) is not allowed in XML")
                }
                out.append(b)
                i += 1
                continue
            }
            // multi-byte sequence: length, minimum value, then continuation bytes
            let len: Int, initial: UInt32, minimum: UInt32
            switch b {
            case 0xC2...0xDF: len = 2; initial = UInt32(b & 0x1F); minimum = 0x80
            case 0xE0...0xEF: len = 3; initial = UInt32(b & 0x0F); minimum = 0x800
            case 0xF0...0xF4: len = 4; initial = UInt32(b & 0x07); minimum = 0x10000
            default: throw fail(out, "the bytes are not valid UTF-8")
            }
            guard i + len <= n else { throw fail(out, "the bytes are not valid UTF-8 (a character is cut off)") }
            var scalar = initial
            for k in 1..<len {
                let c = src[i + k]
                guard c & 0xC0 == 0x80 else { throw fail(out, "the bytes are not valid UTF-8") }
                scalar = scalar << 6 | UInt32(c & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF else { throw fail(out, "the bytes are not valid UTF-8") }
            if (0xD800...0xDFFF).contains(scalar) || scalar == 0xFFFE || scalar == 0xFFFF {
                throw fail(out, "character U+\(hex(scalar)) is not allowed in XML")
            }
            out.append(contentsOf: src[i..<(i + len)])
            i += len
        }
        src = []
        return out
    }

    static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    static func fail(_ out: [UInt8], _ reason: String) -> XMLError {
        position(out, out.count, reason)
    }

    /// The 1-based line and column of byte offset `at` of the prepared bytes (computed
    /// only when an error or a caller asks: one pass up to `at`).
    static func position(_ bytes: [UInt8], _ at: Int, _ reason: String) -> XMLError {
        var line = 1, column = 1
        var k = 0
        let end = min(at, bytes.count)
        while k < end {
            let b = bytes[k]
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            k += 1
        }
        return XMLError(line: line, column: column, reason: reason)
    }
}
