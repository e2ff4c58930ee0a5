#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Strength
import TextBasics

// MARK: - Keystore password strength

/// The strength a new keystore password needs: the zxcvbn-style estimate of the
/// `Strength` module (the vault uses the same) must score at least 3 of 4, unless the
/// user insists (`--allow-weak`). The refusal quotes the estimator's generic warning,
/// never the password.
public enum PasswordPolicy {
    public static let minimumScore = 3

    /// Throws when `password` scores below ``minimumScore``; `userInputs` (the account
    /// name) are the words an attacker would try first.
    public static func requireStrong(_ password: String, userInputs: [String]) throws {
        let e = Strength.estimate(password, userInputs: userInputs)
        guard e.score < minimumScore else { return }
        let why = e.feedback.warning.isEmpty ? "" : " — \(e.feedback.warning.trimmingPunctuation())"
        throw SecureSMSError.keystore(
            "the password is too weak (strength \(e.score) of 4, at least \(minimumScore) is needed\(why)); "
                + "choose a longer one, e.g. four unrelated words, or pass --allow-weak to accept it")
    }
}
