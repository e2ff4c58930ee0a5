import Foundation
import Testing
@testable import DossierKit

/// The byte path of `RecallSection.slug` gives what the Character-set definition gives.
struct RecallSlugTests {
    /// The definition the fast path must keep (the code before it).
    static func reference(_ s: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let out = String(s.map { allowed.contains($0) ? $0 : "-" })
        return out.isEmpty ? "log" : out
    }

    @Test func slugEqualsTheCharacterSetDefinition() {
        var names = ["", "S001", "a.b_c-d", "with space", "Ünïcode", "e\u{301}", "a\r\nb", "tab\there", "日本",
                     "🙂x", "../up", "A-Z_0.9", "%41", "\u{0}"]
        var g = SystemRandomNumberGenerator()
        let pool = Array("abcXYZ019-_. /%é\u{301}🙂\r\n")
        for _ in 0..<2000 {
            names.append(String((0..<Int.random(in: 0...8, using: &g)).map { _ in pool.randomElement(using: &g)! }))
        }
        for n in names { #expect(RecallSection.slug(n) == Self.reference(n), "\(n.debugDescription)") }
    }
}
