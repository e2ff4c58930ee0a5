import Foundation
import Testing
@testable import RecallStudy

/// Two string sets in one project (seed 4a.3): each log is compared with the set it names.
@Suite struct StringSetsTests {
    static let wave2 = StringSet(strings: ["Kp2#vx", "t7&Lm0qZ", "aa9!Bc", "Zr4(wq=1", "h3Hh;pQ8",
                                           "N0v%2y", "c8)Jk4Ls@1", "w5^Te", "Y6~ug2Rk", "e1*Db7Xz"])

    func sets() throws -> StringSets {
        StringSets([.init(name: "wave1", strings: try studyStrings(), file: "wave1.txt"),
                    .init(name: "wave2", strings: Self.wave2, file: "wave2.txt")])
    }

    /// A simulated session typing `strings`, its header naming `set` (or none) and
    /// listing no strings, so only the typed entries tie it to a set.
    func log(typing strings: StringSet, set: String?, seed: UInt64 = 11) throws -> SessionLog {
        var lines = Simulator(strings: strings, seed: seed).log(index: 1).split(
            separator: "\n", omittingEmptySubsequences: false)
        lines[0] = Substring(#"{"type":"session","format":"dossier-recall/1","participant":"W1""#
            + (set.map { #","set":"# + NativeLogWriter.quote($0) } ?? "") + "}")
        return try NativeLog.parse(Data(lines.joined(separator: "\n").utf8), file: "w.jsonl")
    }

    func correctEntries(_ r: ParticipantResult) -> Int {
        r.strings.reduce(0) { $0 + $1.entries.filter(\.correct).count }
    }

    @Test func eachLogIsComparedWithTheSetItNames() throws {
        let sets = try sets()
        let second = try log(typing: Self.wave2, set: "wave2")
        #expect(second.stringSet == "wave2" && second.stringSetLine == 1)
        let chosen = try sets.resolve(second)
        #expect(chosen.name == "wave2")
        let right = try Analyzer.analyze(second, strings: chosen.strings)
        let wrong = try Analyzer.analyze(second, strings: sets.defaultSet.strings)
        #expect(correctEntries(right) > 0)
        #expect(correctEntries(wrong) == 0)

        let first = try log(typing: sets.defaultSet.strings, set: "wave1", seed: 12)
        #expect(try correctEntries(Analyzer.analyze(first, strings: sets.resolve(first).strings)) > 0)
    }

    @Test func aLogNamingNoSetUsesTheFirstSet() throws {
        let sets = try sets()
        let plain = try log(typing: sets.defaultSet.strings, set: nil)
        #expect(plain.stringSet == nil)
        #expect(try sets.resolve(plain).name == "wave1")
    }

    @Test func aLogNamingNoSetTakesTheFirstSetItsDeclaredStringsAgreeWith() throws {
        let sets = try sets()
        func declaring(_ strings: [String]) -> SessionLog {
            SessionLog(participant: "D1", declaredStrings: strings.enumerated().map {
                DeclaredString(number: $0.offset + 1, text: $0.element, line: 1)
            }, events: [], source: .desktop, file: "d.csv")
        }
        #expect(try sets.resolve(declaring(Self.wave2.strings)).name == "wave2")
        #expect(try sets.resolve(declaring(Array(Self.wave2.strings.prefix(3)))).name == "wave2")  // only some declared
        #expect(try sets.resolve(declaring(sets.defaultSet.strings.strings)).name == "wave1")
        #expect(try sets.resolve(declaring(["nothing", "like", "either"])).name == "wave1")  // none agrees: the default
        #expect(try sets.resolve(declaring([])).name == "wave1")
        // Both sets agree (the same strings twice): the first in manifest order.
        let twins = StringSets([
            .init(name: "a", strings: Self.wave2, file: "a.txt"), .init(name: "b", strings: Self.wave2, file: "b.txt")
        ])
        #expect(try twins.resolve(declaring(Self.wave2.strings)).name == "a")
    }

    @Test func anUnknownSetIsAnErrorAtTheHeaderLine() throws {
        let sets = try sets()
        let withSet = header.replacingOccurrences(of: #""participant":"P1""#,
                                                  with: #""participant":"P1","set":"wave3""#)
        var text = "\n" + withSet + "\n"
        text += #"{"t":5,"type":"page","page":"memorize","string":1}"# + "\n"
        let parsed = try parseLog(text, file: "late.jsonl")
        let e = recallError { _ = try sets.resolve(parsed) }
        #expect(e?.file == "late.jsonl")
        #expect(e?.line == 2)
        #expect(e?.message.contains("\"wave3\"") == true)
        #expect(recallError { _ = try parseLog(#"{"type":"session","participant":"P1","set":""}"#) }?.line == 1)
    }
}
