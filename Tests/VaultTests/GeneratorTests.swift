import Foundation
import Testing
@testable import Vault

@Suite struct GeneratorTests {
    func classify(_ c: Character) -> CharacterClass? {
        for k in CharacterClass.allCases where k.characters(excludingLookAlikes: false).contains(c) { return k }
        return nil
    }

    @Test func everyOutputMeetsRandomValidSettings() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let length = Int.random(in: 1...64, using: &rng)
            var mins: [CharacterClass: Int] = [:]
            var budget = length
            for c in CharacterClass.allCases.shuffled(using: &rng) where Bool.random(using: &rng) || mins.isEmpty {
                let m = Int.random(in: 0...min(budget, 8), using: &rng)
                mins[c] = m
                budget -= m
            }
            let settings = GeneratorSettings(
                length: length, minimums: mins, excludeLookAlikes: Bool.random(using: &rng))
            let gen = try PasswordGenerator(settings)
            for pw in gen.generate(count: 5) {
                let s = pw.reveal
                #expect(s.count == length)
                var counts: [CharacterClass: Int] = [:]
                for ch in s {
                    let k = try #require(classify(ch))
                    #expect(mins[k] != nil, "class \(k) is off but appears")
                    if settings.excludeLookAlikes { #expect(!CharacterClass.lookAlikes.contains(ch)) }
                    counts[k, default: 0] += 1
                }
                for (k, m) in mins { #expect(counts[k, default: 0] >= m) }
            }
        }
    }

    @Test func impossibleSettingsAreErrors() {
        #expect(throws: VaultError.self) {
            try PasswordGenerator(GeneratorSettings(length: 5, minimums: [.upper: 3, .digits: 3]))
        }
        #expect(throws: VaultError.self) { try PasswordGenerator(GeneratorSettings(length: 10, minimums: [:])) }
        #expect(throws: VaultError.self) { try PasswordGenerator(GeneratorSettings(length: 0, minimums: [.lower: 0])) }
        #expect(throws: VaultError.self) { try PasswordGenerator(GeneratorSettings(length: 65, minimums: [.lower: 0])) }
        #expect(throws: VaultError.self) { try PasswordGenerator(GeneratorSettings(length: 8, minimums: [.lower: -1])) }
    }

    @Test func validCountMatchesInclusionExclusion() throws {
        // length 8, upper ≥ 1 and digits ≥ 1 over upper ∪ digits: 36⁸ − 26⁸ − 10⁸ (independent count)
        let gen = try PasswordGenerator(GeneratorSettings(length: 8, minimums: [.upper: 1, .digits: 1]))
        let expected = 2_821_109_907_456 - 208_827_064_576 - 100_000_000
        #expect(gen.validPasswordCount == String(expected))
    }

    /// Upper bound of the chi-squared distribution's 1 − 10⁻⁶ quantile (Wilson–Hilferty, z = 4.75).
    func chiSquaredLimit(_ dof: Double) -> Double {
        let z = 4.75
        let t = 1 - 2 / (9 * dof) + z * (2 / (9 * dof)).squareRoot()
        return dof * t * t * t
    }

    @Test func characterFrequenciesAreUniform() throws {
        let gen = try PasswordGenerator(
            GeneratorSettings(length: 16, minimums: [.upper: 0, .lower: 0, .digits: 0, .special: 0]))
        let alphabet = CharacterClass.allCases.flatMap { $0.characters(excludingLookAlikes: false) }
        var counts: [Character: Int] = [:]
        let n = 4000
        for pw in gen.generate(count: n) { for c in pw.reveal { counts[c, default: 0] += 1 } }
        let expected = Double(n * 16) / Double(alphabet.count)
        let chi = alphabet.reduce(0.0) { acc, c in
            let d = Double(counts[c, default: 0]) - expected
            return acc + d * d / expected
        }
        #expect(chi < chiSquaredLimit(Double(alphabet.count - 1)), "chi² \(chi)")
    }

    @Test func uniformOverValidPasswordsNotOverPicks() throws {
        // length 2, digits ≥ 1, specials allowed: of the 38² − 28² = 660 valid passwords,
        // 100 are digit+digit (p = 100/660) and 280 each digit-special / special-digit.
        let gen = try PasswordGenerator(GeneratorSettings(length: 2, minimums: [.digits: 1, .special: 0]))
        var dd = 0, ds = 0, sd = 0
        let n = 6000
        for pw in gen.generate(count: n) {
            let cs = Array(pw.reveal)
            let a = cs[0].isNumber, b = cs[1].isNumber
            if a && b {
                dd += 1
            } else if a {
                ds += 1
            } else if b {
                sd += 1
            } else {
                Issue.record("no digit in \(cs.count) chars")
            }
        }
        let p = [100.0, 280, 280].map { $0 / 660 }
        let obs = [dd, ds, sd].map(Double.init)
        let chi = zip(obs, p).reduce(0.0) { $0 + pow($1.0 - $1.1 * Double(n), 2) / ($1.1 * Double(n)) }
        #expect(chi < chiSquaredLimit(2), "chi² \(chi) for \(obs)")
    }

    @Test func passphrasesUseTheListAndOptions() throws {
        let gen = try PassphraseGenerator(
            PassphraseSettings(words: 6, separator: "_", capitalize: true, includeDigit: true))
        #expect(gen.wordList.count == 7776)
        #expect(Set(gen.wordList).count == 7776)
        let p = gen.generate().reveal
        let parts = p.split(separator: "_")
        #expect(parts.count == 6)
        #expect(parts.allSatisfy { $0.first!.isUppercase })
        #expect(p.filter(\.isNumber).count == 1)
        #expect(throws: VaultError.self) { try PassphraseGenerator(PassphraseSettings(words: 2)) }
    }

    @Test func secureRandomBelowStaysInRange() {
        let r = SecureRandom()
        for n in [1, 2, 3, 7, 1000, Int(UInt32.max) + 5] {
            for _ in 0..<200 { #expect((0..<n).contains(r.below(n))) }
        }
    }
}
