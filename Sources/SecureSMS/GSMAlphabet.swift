#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - GSM 03.38 alphabet

/// The GSM 03.38 (3GPP TS 23.038) 7-bit default alphabet and its extension table.
///
/// The basic table follows the standard (and the unicode.org file
/// `Public/MAPPINGS/ETSI/GSM0338.TXT`), with one documented choice: code 0x09 is
/// **Ç** (U+00C7) as in the standard, while the Unicode mapping file says ç (U+00E7).
/// When reading plaintext, ç is accepted as 0x09 (and comes back as Ç).
/// 0x1B is ESC: it never stands for a character on its own; followed by one of the
/// extension codes it means `^ { } \ [ ~ ] | €` (two septets each). The extension
/// table's form feed (ESC 0x0A) is rejected: it is not a printable character.
public enum GSMAlphabet {
    /// Code point → character, index = septet value. Entry 0x1B (ESC) is a placeholder.
    public static let basic: [Unicode.Scalar] = [
        "@", "£", "$", "¥", "è", "é", "ù", "ì", "ò", "Ç", "\n", "Ø", "ø", "\r", "Å", "å",
        "Δ", "_", "Φ", "Γ", "Λ", "Ω", "Π", "Ψ", "Σ", "Θ", "Ξ", "\u{1B}", "Æ", "æ", "ß", "É",
        " ", "!", "\"", "#", "¤", "%", "&", "'", "(", ")", "*", "+", ",", "-", ".", "/",
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ":", ";", "<", "=", ">", "?",
        "¡", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O",
        "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z", "Ä", "Ö", "Ñ", "Ü", "§",
        "¿", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o",
        "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "ä", "ö", "ñ", "ü", "à",
    ]

    /// The escape septet.
    public static let escape: UInt8 = 0x1B

    /// Extension table: septet after ESC → character (printable entries only).
    public static let extensionTable: [UInt8: Unicode.Scalar] = [
        0x14: "^", 0x28: "{", 0x29: "}", 0x2F: "\\", 0x3C: "[", 0x3D: "~", 0x3E: "]", 0x40: "|", 0x65: "€",
    ]

    static let basicIndex: [Unicode.Scalar: UInt8] = {
        var m: [Unicode.Scalar: UInt8] = [:]
        for (i, s) in basic.enumerated() where i != 0x1B { m[s] = UInt8(i) }
        m["ç"] = 0x09
        return m
    }()

    static let extensionIndex: [Unicode.Scalar: UInt8] = {
        var m: [Unicode.Scalar: UInt8] = [:]
        for (k, v) in extensionTable { m[v] = k }
        return m
    }()

    /// The septets of `text` (NFC-normalised first): one per basic character, two
    /// (ESC, code) per extension character. Throws `.notGSM(position:)` (1-based,
    /// counting Unicode scalars after normalisation) for anything else — the
    /// character itself is never echoed, since it is part of a secret message.
    public static func septets(_ text: String) throws -> [UInt8] {
        var out: [UInt8] = []
        let nfc = text.nfc
        for (i, s) in nfc.unicodeScalars.enumerated() {
            if let b = basicIndex[s] {
                out.append(b)
            } else if let e = extensionIndex[s] {
                out.append(escape)
                out.append(e)
            } else {
                throw SecureSMSError.notGSM(position: i + 1)
            }
        }
        return out
    }

    /// How many septets `text` needs, or the position of the first character outside the alphabet.
    public static func septetCount(_ text: String) throws -> Int {
        try septets(text).count
    }

    /// The text of a septet sequence (inverse of ``septets(_:)``). Throws on a lone
    /// ESC or an ESC followed by a code that is not a printable extension.
    public static func text(_ septets: [UInt8]) throws -> String {
        var out = String.UnicodeScalarView()
        var i = 0
        while i < septets.count {
            let b = septets[i]
            guard b < 0x80 else { throw SecureSMSError.malformedPlaintext }
            if b == escape {
                guard i + 1 < septets.count, let e = extensionTable[septets[i + 1]] else {
                    throw SecureSMSError.malformedPlaintext
                }
                out.append(e)
                i += 2
            } else {
                out.append(basic[Int(b)])
                i += 1
            }
        }
        return String(out)
    }
}

// MARK: - Copy-paste-safe ciphertext alphabet

/// The 118 characters a SecureSMS message is written in: the GSM basic table in code
/// order without the ten that do not survive copy and paste:
///
/// | code | char | why excluded |
/// |---|---|---|
/// | 0x00 | `@` | is the NUL septet (collides with C string handling in some stacks); starts @-mentions |
/// | 0x09 | `Ç` | sources disagree (Ç in the standard, ç in the Unicode mapping file) |
/// | 0x0A | LF | line ends are rewritten by apps |
/// | 0x0D | CR | line ends are rewritten by apps |
/// | 0x11 | `_` | chat apps treat `_x_` as italics markup |
/// | 0x1B | ESC | cannot be sent on its own |
/// | 0x20 | space | trimmed at the ends, collapsed, used for line wrapping |
/// | 0x22 | `"` | turned into curly quotes by "smart punctuation" |
/// | 0x27 | `'` | turned into curly quotes by "smart punctuation" |
/// | 0x2A | `*` | chat apps treat `*x*` as bold markup |
public enum SafeAlphabet {
    public static let excludedCodes: Set<UInt8> = [0x00, 0x09, 0x0A, 0x0D, 0x11, 0x1B, 0x20, 0x22, 0x27, 0x2A]

    /// Digit value → character.
    public static let characters: [Unicode.Scalar] = {
        (0..<128).filter { !excludedCodes.contains(UInt8($0)) }.map { GSMAlphabet.basic[$0] }
    }()

    /// The radix of the encoding (118).
    public static var radix: Int { characters.count }

    static let digitOf: [Unicode.Scalar: Int] = {
        var m: [Unicode.Scalar: Int] = [:]
        for (i, s) in characters.enumerated() { m[s] = i }
        return m
    }()

    /// The digit value of one character, or nil when it is not in the safe alphabet.
    public static func digit(_ s: Unicode.Scalar) -> Int? { digitOf[s] }

    /// A paste as apps deliver it: NFC-normalised, every whitespace character dropped
    /// (apps wrap lines and add spaces).
    public static func cleaned(_ pasted: String) -> [Unicode.Scalar] {
        Array(pasted.nfc.unicodeScalars.filter { !$0.properties.isWhitespace })
    }

    /// The digit values of `scalars`; nil and the 1-based position (plus `offset`) of the
    /// first one outside the alphabet.
    public static func digits(_ scalars: [Unicode.Scalar], offset: Int = 0) -> (digits: [Int]?, badPosition: Int) {
        var out: [Int] = []
        out.reserveCapacity(scalars.count)
        for (i, s) in scalars.enumerated() {
            guard let d = digitOf[s] else { return (nil, offset + i + 1) }
            out.append(d)
        }
        return (out, 0)
    }
}
