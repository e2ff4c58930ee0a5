#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Settings

/// Character classes of the generator. The exact sets are in docs/vault-generator.md.
public enum CharacterClass: String, CaseIterable, Sendable, Codable {
    case upper, lower, digits, special

    public static let upperSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    public static let lowerSet = "abcdefghijklmnopqrstuvwxyz"
    public static let digitSet = "0123456789"
    /// Printable ASCII punctuation minus quotes, backslash, backtick and space (they break
    /// shells, CSV and form fields): 26 characters.
    public static let specialSet = "!#$%&()*+,-./:;<=>?@[]^_{|}~"
    /// Look-alikes removed by `excludeLookAlikes`.
    public static let lookAlikes = "0O1Il|"

    /// The characters of the class, optionally without look-alikes.
    public func characters(excludingLookAlikes: Bool) -> [Character] {
        let all: String
        switch self {
        case .upper: all = Self.upperSet
        case .lower: all = Self.lowerSet
        case .digits: all = Self.digitSet
        case .special: all = Self.specialSet
        }
        return all.filter { !excludingLookAlikes || !Self.lookAlikes.contains($0) }.map { $0 }
    }
}

/// What to generate: length 1–64, each class on/off with a minimum count (0 with the
/// class on = "may appear, no minimum").
public struct GeneratorSettings: Sendable, Codable, Equatable {
    public static let maxLength = 64
    public var length: Int
    /// Enabled classes and their minimum counts; a class absent here is off.
    public var minimums: [CharacterClass: Int]
    public var excludeLookAlikes: Bool

    public init(length: Int = 20, minimums: [CharacterClass: Int] = [.upper: 1, .lower: 1, .digits: 1, .special: 1],
                excludeLookAlikes: Bool = false) {
        self.length = length
        self.minimums = minimums
        self.excludeLookAlikes = excludeLookAlikes
    }

    /// Throws when no password can meet the settings.
    public func validate() throws {
        guard (1...Self.maxLength).contains(length) else {
            throw VaultError(.invalidInput, "length \(length) is outside 1…\(Self.maxLength)")
        }
        guard !minimums.isEmpty else {
            throw VaultError(.invalidInput, "every character class is off: turn at least one on")
        }
        for c in CharacterClass.allCases {
            guard let m = minimums[c] else { continue }
            if m < 0 { throw VaultError(.invalidInput, "minimum for \(c.rawValue) is negative (\(m))") }
            // each minimum is checked alone first, so the sum below cannot overflow
            if m > length {
                throw VaultError(.invalidInput, "the minimum for \(c.rawValue) is \(m), more than the length \(length)")
            }
        }
        let total = minimums.values.reduce(0, +)
        guard total <= length else {
            throw VaultError(.invalidInput, "the minimums add up to \(total), more than the length \(length)")
        }
    }
}

// MARK: - Generator

/// Generates passwords **uniformly over every string that meets the settings**, exactly.
///
/// Method (docs/vault-generator.md): with enabled classes 1…k of sizes sᵢ and minimums mᵢ,
/// `G_j(r)` = number of length-r strings over classes j…k meeting their minimums:
/// `G_k(r) = s_k^r if r ≥ m_k else 0`, `G_j(r) = Σ_{c ≥ m_j} C(r,c)·s_j^c·G_{j+1}(r−c)`.
/// A password picks c₁ with probability `C(L,c₁)s₁^{c₁}G₂(L−c₁)/G₁(L)`, then c₂ …
/// (big-integer arithmetic, uniform big draws by rejection), shuffles the multiset of
/// class labels (Fisher–Yates) and fills each position with a uniform character of its
/// class. Every draw uses rejection-sampled CSPRNG indices; time is bounded by the
/// length (each rejection loop accepts with probability > ½).
public struct PasswordGenerator: Sendable {
    public let settings: GeneratorSettings
    let classes: [(CharacterClass, [Character], Int)]
    /// counts[j][r] = G_j(r); counts[k][r] = 1 if r == 0 (empty tail).
    let counts: [[BigUInt]]
    private let random = SecureRandom()

    public init(_ settings: GeneratorSettings) throws {
        try settings.validate()
        self.settings = settings
        let classes = CharacterClass.allCases.compactMap { c -> (CharacterClass, [Character], Int)? in
            guard let m = settings.minimums[c] else { return nil }
            return (c, c.characters(excludingLookAlikes: settings.excludeLookAlikes), m)
        }
        self.classes = classes
        let L = settings.length
        // binomials as big integers (C(64,32) fits in 64 bits, but products do not)
        var binom = [[BigUInt]](repeating: [], count: L + 1)
        for n in 0...L {
            var row = [BigUInt](repeating: .zero, count: n + 1)
            row[0] = .one; row[n] = .one
            if n >= 2 { for k in 1..<n { row[k] = binom[n - 1][k - 1] + binom[n - 1][k] } }
            binom[n] = row
        }
        var counts = [[BigUInt]](repeating: [BigUInt](repeating: .zero, count: L + 1), count: classes.count + 1)
        counts[classes.count][0] = .one
        for j in stride(from: classes.count - 1, through: 0, by: -1) {
            let s = BigUInt(UInt64(classes[j].1.count))
            var powers = [BigUInt.one]
            for _ in 0..<L { powers.append(powers.last! * s) }
            for r in 0...L {
                var total = BigUInt.zero
                if classes[j].2 <= r {
                    for c in classes[j].2...r where !counts[j + 1][r - c].isZero {
                        total = total + binom[r][c] * powers[c] * counts[j + 1][r - c]
                    }
                }
                counts[j][r] = total
            }
        }
        self.counts = counts
        guard !counts[0][L].isZero else {
            throw VaultError(.invalidInput, "no password meets these settings")
        }
        self.binomials = binom
    }
    private let binomials: [[BigUInt]]

    /// The number of passwords meeting the settings (each is equally likely).
    public var validPasswordCount: String { counts[0][settings.length].description }
    /// log₂ of that number: the generator's entropy in bits.
    public var entropyBits: Double {
        let c = counts[0][settings.length]
        let extra = max(0, c.bitWidth - 1000)
        return log2(c.doubleValue) + Double(extra)
    }

    /// One password.
    public func generate() -> Secret {
        let L = settings.length
        var remaining = L
        var labels: [Int] = []
        labels.reserveCapacity(L)
        for j in 0..<classes.count {
            let s = BigUInt(UInt64(classes[j].1.count))
            // choose c for class j with weight C(r,c)·s^c·G_{j+1}(r−c)
            var draw = random.below(counts[j][remaining])
            var chosen = remaining
            var power = BigUInt.one
            for _ in 0..<classes[j].2 { power = power * s }
            for c in classes[j].2...remaining {
                let w = binomials[remaining][c] * power * counts[j + 1][remaining - c]
                if draw < w { chosen = c; break }
                draw = draw - w
                power = power * s
            }
            labels.append(contentsOf: repeatElement(j, count: chosen))
            remaining -= chosen
        }
        random.shuffle(&labels)
        var out = ""
        for j in labels {
            let set = classes[j].1
            out.append(set[random.below(set.count)])
        }
        return Secret(out)
    }

    /// `n` passwords.
    public func generate(count n: Int) -> [Secret] { (0..<n).map { _ in generate() } }
}
