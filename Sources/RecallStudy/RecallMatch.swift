#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - What "exact" means when a typed text is compared with a target

/// Dossier's one comparison of a typed text with a string (Verify, Entry `correct`,
/// Recall matches, raw.csv column H). See docs/recall-measures.md, "Exact matching".
///
/// Two texts are equal when their **NFC forms are the same bytes** — canonically
/// equivalent spellings of the same characters (a precomposed `ä` and `a` + combining
/// diaeresis) are equal, because which one arrives depends on the keyboard, not on the
/// participant. Every other difference makes the texts unequal: case, spaces anywhere
/// (Outstanding Question 6), compatibility forms (`ﬁ` vs `fi`, fullwidth `Ｑ` vs `Q`: no
/// NFKC), invisible characters. Swift's `String ==` is exactly this relation (canonical
/// equivalence), so the analysis uses it; ``normalized(_:)`` states it in bytes.
public enum RecallMatch {
    /// Whether `typed` equals `target` under the rule above.
    @inlinable public static func exact(_ typed: String, _ target: String) -> Bool { typed == target }

    /// The UTF-8 bytes of the NFC form of `s` (the bytes that ``exact(_:_:)`` compares).
    public static func normalized(_ s: String) -> [UInt8] {
        Array(s.nfc.utf8)
    }
}
