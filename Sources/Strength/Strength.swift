#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Public API

/// A password strength estimate in zxcvbn's terms. Carries no part of the password:
/// the match sequence lists pattern kinds and positions only.
public struct StrengthEstimate: Sendable, Codable, Equatable {
    /// Estimated guesses an attacker needs (minimum over decompositions).
    public var guesses: Double
    public var guessesLog10: Double
    /// 0 too guessable (< 10³), 1 very guessable (< 10⁶), 2 somewhat (< 10⁸), 3 safely (< 10¹⁰), 4 very unguessable.
    public var score: Int
    public var crackTimesSeconds: CrackTimes
    public var crackTimesDisplay: CrackTimesDisplay
    public var feedback: Feedback
    /// The chosen decomposition: pattern name and code-point range of each part.
    public var sequence: [Part]
    /// Characters scored (the estimator looks at the first ``Strength/maxScoredLength``).
    public var scoredLength: Int

    public struct CrackTimes: Sendable, Codable, Equatable {
        public var onlineThrottling100PerHour: Double
        public var onlineNoThrottling10PerSecond: Double
        public var offlineSlowHashing1e4PerSecond: Double
        public var offlineFastHashing1e10PerSecond: Double
    }
    public struct CrackTimesDisplay: Sendable, Codable, Equatable {
        public var onlineThrottling100PerHour: String
        public var onlineNoThrottling10PerSecond: String
        public var offlineSlowHashing1e4PerSecond: String
        public var offlineFastHashing1e10PerSecond: String
    }
    public struct Feedback: Sendable, Codable, Equatable {
        public var warning: String
        public var suggestions: [String]
    }
    public struct Part: Sendable, Codable, Equatable {
        public var pattern: String
        public var i: Int
        public var j: Int
        public var guesses: Double
        /// For dictionary parts: which list (`passwords`, `english_wikipedia`, …, `user_inputs`).
        public var dictionary: String?
    }
}

/// The strength estimator: a Swift implementation of zxcvbn's algorithm over its
/// published frequency lists (see docs/vault-strength.md).
public enum Strength {
    /// Longer passwords are scored on their first 100 code points (time grows with length).
    public static let maxScoredLength = 100

    /// Estimates `password`'s strength. `userInputs` are words an attacker would try first
    /// (the entry's title, username, website parts).
    public static func estimate(_ password: String, userInputs: [String] = []) -> StrengthEstimate {
        let scalars = Array(password.unicodeScalars.map(\.value).prefix(maxScoredLength))
        let matcher = Matcher(userInputs: userInputs)
        let result = Scoring.mostGuessableMatchSequence(scalars, matcher.omnimatch(scalars))
        let g = result.guesses
        let times = StrengthEstimate.CrackTimes(
            onlineThrottling100PerHour: g / (100.0 / 3600.0),
            onlineNoThrottling10PerSecond: g / 10,
            offlineSlowHashing1e4PerSecond: g / 1e4,
            offlineFastHashing1e10PerSecond: g / 1e10)
        let display = StrengthEstimate.CrackTimesDisplay(
            onlineThrottling100PerHour: displayTime(times.onlineThrottling100PerHour),
            onlineNoThrottling10PerSecond: displayTime(times.onlineNoThrottling10PerSecond),
            offlineSlowHashing1e4PerSecond: displayTime(times.offlineSlowHashing1e4PerSecond),
            offlineFastHashing1e10PerSecond: displayTime(times.offlineFastHashing1e10PerSecond))
        let score = guessesToScore(g)
        return StrengthEstimate(
            guesses: g, guessesLog10: log10(g), score: score,
            crackTimesSeconds: times, crackTimesDisplay: display,
            feedback: FeedbackRules.feedback(score: score, sequence: result.sequence),
            sequence: result.sequence.map {
                .init(pattern: $0.pattern.rawValue, i: $0.i, j: $0.j, guesses: $0.guesses,
                      dictionary: $0.pattern == .dictionary ? $0.dictionaryName : nil)
            },
            scoredLength: scalars.count)
    }

    /// Score cut-offs at 10³, 10⁶, 10⁸, 10¹⁰ guesses (+5 as in zxcvbn).
    public static func guessesToScore(_ g: Double) -> Int {
        let delta = 5.0
        if g < 1e3 + delta { return 0 }
        if g < 1e6 + delta { return 1 }
        if g < 1e8 + delta { return 2 }
        if g < 1e10 + delta { return 3 }
        return 4
    }

    /// zxcvbn's human display ("3 hours", "centuries"); months are 31 days, years 12 months.
    public static func displayTime(_ seconds: Double) -> String {
        let minute = 60.0, hour = minute * 60, day = hour * 24, month = day * 31, year = month * 12,
            century = year * 100
        let (n, unit): (Double?, String)
        if seconds < 1 { (n, unit) = (nil, "less than a second") }
        else if seconds < minute { (n, unit) = (roundHalfEven(seconds), "second") }
        else if seconds < hour { (n, unit) = (roundHalfEven(seconds / minute), "minute") }
        else if seconds < day { (n, unit) = (roundHalfEven(seconds / hour), "hour") }
        else if seconds < month { (n, unit) = (roundHalfEven(seconds / day), "day") }
        else if seconds < year { (n, unit) = (roundHalfEven(seconds / month), "month") }
        else if seconds < century { (n, unit) = (roundHalfEven(seconds / year), "year") }
        else { (n, unit) = (nil, "centuries") }
        guard let n else { return unit }
        let k = Int(n)
        return "\(k) \(unit)" + (k != 1 ? "s" : "")
    }

    private static func roundHalfEven(_ x: Double) -> Double { x.rounded(.toNearestOrEven) }
}

// MARK: - Feedback

enum FeedbackRules {
    static func feedback(score: Int, sequence: [Match]) -> StrengthEstimate.Feedback {
        if sequence.isEmpty {
            return .init(warning: "", suggestions: ["Use a few words, avoid common phrases.",
                                                   "No need for symbols, digits, or uppercase letters."])
        }
        if score > 2 { return .init(warning: "", suggestions: []) }
        var longest = sequence[0]
        for m in sequence.dropFirst() where m.length > longest.length { longest = m }
        let extra = "Add another word or two. Uncommon words are better."
        if var f = matchFeedback(longest, isSoleMatch: sequence.count == 1) {
            f.suggestions.insert(extra, at: 0)
            return f
        }
        return .init(warning: "", suggestions: [extra])
    }

    static func matchFeedback(_ m: Match, isSoleMatch: Bool) -> StrengthEstimate.Feedback? {
        switch m.pattern {
        case .dictionary: return dictionaryFeedback(m, isSoleMatch: isSoleMatch)
        case .spatial:
            return .init(
                warning: m.turns == 1
                    ? "Straight rows of keys are easy to guess." : "Short keyboard patterns are easy to guess.",
                suggestions: ["Use a longer keyboard pattern with more turns."])
        case .repeat:
            return .init(warning: m.baseToken.count == 1 ? "Repeats like \"aaa\" are easy to guess."
                    : "Repeats like \"abcabcabc\" are only slightly harder to guess than \"abc\".",
                         suggestions: ["Avoid repeated words and characters."])
        case .sequence:
            return .init(
                warning: "Sequences like \"abc\" or \"6543\" are easy to guess.", suggestions: ["Avoid sequences."])
        case .regex:
            return .init(warning: "Recent years are easy to guess.",
                         suggestions: ["Avoid recent years.", "Avoid years that are associated with you."])
        case .date:
            return .init(
                warning: "Dates are often easy to guess.",
                suggestions: ["Avoid dates and years that are associated with you."])
        case .bruteforce:
            return nil
        }
    }

    static func dictionaryFeedback(_ m: Match, isSoleMatch: Bool) -> StrengthEstimate.Feedback {
        var warning = ""
        switch m.dictionaryName {
        case "passwords":
            if isSoleMatch && !m.l33t && !m.reversed {
                warning = m.rank <= 10 ? "This is a top-10 common password."
                    : m.rank <= 100 ? "This is a top-100 common password." : "This is a very common password."
            } else if log10(m.guesses) <= 4 {
                warning = "This is similar to a commonly used password."
            }
        case "english_wikipedia":
            if isSoleMatch { warning = "A word by itself is easy to guess." }
        case "surnames", "male_names", "female_names":
            warning =
                isSoleMatch
                ? "Names and surnames by themselves are easy to guess." : "Common names and surnames are easy to guess."
        default: break
        }
        var suggestions: [String] = []
        let w = m.token
        let startUpper = w.count >= 2 && CP.isUpperASCII(w[0]) && w.dropFirst().allSatisfy { !CP.isUpperASCII($0) }
        let allUpper = !w.isEmpty && !w.contains(where: CP.isLowerASCII)
        if startUpper {
            suggestions.append("Capitalization doesn't help very much.")
        } else if allUpper && w.map(CP.lower) != w {
            suggestions.append("All-uppercase is almost as easy to guess as all-lowercase.")
        }
        if m.reversed && m.token.count >= 4 { suggestions.append("Reversed words aren't much harder to guess.") }
        if m.l33t { suggestions.append("Predictable substitutions like '@' instead of 'a' don't help very much.") }
        return .init(warning: warning, suggestions: suggestions)
    }
}
