#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Passphrase settings: `words` words (3–20) joined by `separator`, optionally each
/// capitalised, optionally with one random digit appended to one random word.
public struct PassphraseSettings: Sendable, Codable, Equatable {
    public var words: Int
    public var separator: String
    public var capitalize: Bool
    public var includeDigit: Bool
    public init(words: Int = 5, separator: String = "-", capitalize: Bool = false, includeDigit: Bool = false) {
        self.words = words
        self.separator = separator
        self.capitalize = capitalize
        self.includeDigit = includeDigit
    }
}

/// Generates passphrases from a 7,776-word list (the first 7,776 distinct 4–8-letter
/// words of the English frequency list shipped for the estimator): 12.9 bits per word.
public struct PassphraseGenerator: Sendable {
    public static let listSize = 7776
    public let settings: PassphraseSettings
    public let wordList: [String]
    private let random = SecureRandom()

    public init(_ settings: PassphraseSettings) throws {
        guard (3...20).contains(settings.words) else {
            throw VaultError(.invalidInput, "passphrase word count \(settings.words) is outside 3…20")
        }
        self.settings = settings
        self.wordList = Self.defaultWordList
        guard wordList.count == Self.listSize else {
            throw VaultError(.io, "passphrase word list is missing from the resources")
        }
    }

    static let defaultWordList: [String] = {
        var seen = Set<String>()
        var out: [String] = []
        for w in StrengthWordList.english where (4...8).contains(w.count) && w.allSatisfy({ $0 >= "a" && $0 <= "z" }) {
            if seen.insert(w).inserted { out.append(w) }
            if out.count == listSize { break }
        }
        return out
    }()

    /// Entropy in bits: words·log₂(7776) (+ log₂(10·words) for the digit).
    public var entropyBits: Double {
        Double(settings.words) * log2(Double(Self.listSize))
            + (settings.includeDigit ? log2(10 * Double(settings.words)) : 0)
    }

    public func generate() -> Secret {
        var words = (0..<settings.words).map { _ in wordList[random.below(wordList.count)] }
        if settings.capitalize { words = words.map { $0.prefix(1).uppercased() + $0.dropFirst() } }
        if settings.includeDigit {
            let k = random.below(words.count)
            words[k] += String(random.below(10))
        }
        return Secret(words.joined(separator: settings.separator))
    }
}
