import Foundation
import Testing
@testable import Vault

@Suite struct StrengthTests {
    /// The committed oracle: zxcvbn 4.5.0's score for every corpus password
    /// (scripts/vault/make_strength_corpus.py; re-validated by Tests/e2e/test_vault_zxcvbn.py).
    static func oracle() throws -> [(String, Int, Double)] {
        let text = try String(contentsOf: fixture("strength-oracle.tsv"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            return (String(f[0]), Int(f[1])!, Double(f[2])!)
        }
    }

    @Test func scoresAgreeWithZxcvbnOnTheCorpus() throws {
        let rows = try Self.oracle()
        #expect(rows.count >= 2000)
        var agree = 0
        var worst = 0
        var misses: [String] = []
        for (pw, score, _) in rows {
            let s = Strength.estimate(pw).score
            if s == score { agree += 1 } else if misses.count < 15 { misses.append("\(pw): \(s) vs \(score)") }
            worst = max(worst, abs(s - score))
        }
        let rate = Double(agree) / Double(rows.count)
        print("zxcvbn agreement: \(agree)/\(rows.count) = \(rate), largest difference \(worst); e.g. \(misses)")
        #expect(rate >= 0.95, "agreement \(rate); e.g. \(misses)")
        #expect(worst <= 1, "a score differs by \(worst)")
    }

    @Test func guessesTrackZxcvbnClosely() throws {
        // log10 guesses within 0.5 for at least 90% of the corpus
        let rows = try Self.oracle()
        let close = rows.filter { abs(Strength.estimate($0.0).guessesLog10 - $0.2) <= 0.5 }.count
        #expect(Double(close) / Double(rows.count) >= 0.90)
    }

    @Test func userInputsLowerTheEstimate() {
        let pw = "quixoticmongoose"
        let plain = Strength.estimate(pw)
        let withInputs = Strength.estimate(pw, userInputs: ["quixoticmongoose"])
        #expect(withInputs.guesses < plain.guesses)
        #expect(withInputs.sequence.first?.dictionary == "user_inputs")
    }

    @Test func scoreCutoffsFollowTheGuessThresholds() {
        #expect(Strength.guessesToScore(1e3 + 4) == 0)
        #expect(Strength.guessesToScore(1e3 + 5) == 1)
        #expect(Strength.guessesToScore(1e6 + 5) == 2)
        #expect(Strength.guessesToScore(1e8 + 5) == 3)
        #expect(Strength.guessesToScore(1e10 + 5) == 4)
    }

    @Test func crackTimesAreGuessesOverRates() {
        let e = Strength.estimate("Tr0ub4dour&3")
        #expect(abs(e.crackTimesSeconds.onlineNoThrottling10PerSecond - e.guesses / 10) < 1e-6 * e.guesses)
        #expect(abs(e.crackTimesSeconds.offlineFastHashing1e10PerSecond - e.guesses / 1e10) < 1e-6 * e.guesses)
        #expect(Strength.displayTime(0.5) == "less than a second")
        #expect(Strength.displayTime(1) == "1 second")
        #expect(Strength.displayTime(7200) == "2 hours")
        #expect(Strength.displayTime(1e12) == "centuries")
    }

    @Test func feedbackOnlyForWeakPasswords() {
        #expect(Strength.estimate("password").feedback.warning == "This is a top-10 common password.")
        #expect(Strength.estimate("zxcvfrewq").feedback.warning == "Short keyboard patterns are easy to guess.")
        let strong = Strength.estimate("v8#Kq!2mZp@9LxT4")
        #expect(strong.score == 4)
        #expect(strong.feedback.suggestions.isEmpty)
    }

    @Test func estimateCarriesNoPartOfThePassword() throws {
        let pw = "CanaryPassw0rdXYZ"
        let json = String(decoding: try JSONEncoder().encode(Strength.estimate(pw)), as: UTF8.self)
        #expect(!json.contains(pw))
        #expect(!json.lowercased().contains("canary"))
    }

    @Test func longPasswordsAreScoredOnTheirFirst100Characters() {
        let e = Strength.estimate(String(repeating: "ab1!", count: 60))
        #expect(e.scoredLength == 100)
    }
}
