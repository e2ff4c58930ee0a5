import Foundation
import Testing
@testable import DossierKit

/// The YAML composer over libyaml's events (docs/configuration.md, "How YAML is read"):
/// structures, lines, nulls, anchors and their budget, and the errors of bad input.
@Suite struct YAMLComposerTests {
    func parse(_ yaml: String) throws -> ConfigNode { try ConfigNode.parse(yaml, file: "x.yml") }

    func error(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> Diagnostic? {
        do { _ = try parse(yaml); Issue.record("accepted", sourceLocation: sourceLocation); return nil } catch {
            guard let e = error as? DossierError else { return nil }
            #expect(e.diagnostics[0].file == "x.yml", sourceLocation: sourceLocation)
            return e.diagnostics[0]
        }
    }

    @Test func blockAndFlowStylesGiveTheSameNodesWithTheirLines() throws {
        let block = try parse("a: 1\nb:\n  - x\n  - y\nc:\n  d: e\n")
        #expect(block == .map([
            ConfigEntry(key: "a", keyLine: 1, value: .scalar("1", line: 1)),
            ConfigEntry(key: "b", keyLine: 2, value: .list([.scalar("x", line: 3), .scalar("y", line: 4)], line: 3)),
            ConfigEntry(key: "c", keyLine: 5,
                        value: .map([ConfigEntry(key: "d", keyLine: 6, value: .scalar("e", line: 6))],
                                                        line: 6)),
        ], line: 1))
        let flow = try parse("{a: 1, b: [x, y], c: {d: e}}\n")
        #expect(flow.canonical == block.canonical)
    }

    @Test func nullsArePlainNullWordsEmptyValuesAndTheNullTag() throws {
        let node = try parse("a:\nb: ~\nc: null\nd: NULL\ne: \"null\"\nf: 'null'\ng: !!null x\nh: nil\ni: ''\n")
        guard case .map(let e, _) = node else { Issue.record("not a map"); return }
        #expect(e.map { if case .null = $0.value { return true } else { return false } }
            == [true, true, true, true, false, false, true, false, false])
        #expect(e[4].value == .scalar("null", line: 5))
    }

    @Test func tagsAreKeptAsTextOtherwise() throws {
        #expect(try parse("a: !!str 1\nb: !custom x\nc: !!int 7\n").scalars == ["1", "x", "7"])
    }

    @Test func aliasesStandForTheirAnchorsNodeAndTheLatestAnchorWins() throws {
        let node = try parse("a: &x [1, 2]\nb: *x\nc: &x q\nd: *x\n&k key: v\nother: *k\n")
        guard case .map(let e, _) = node else { Issue.record("not a map"); return }
        #expect(e[1].value == .list([.scalar("1", line: 1), .scalar("2", line: 1)], line: 1))
        #expect(e[3].value == .scalar("q", line: 3))
        #expect(e[5].value == .scalar("key", line: 5))
        // An alias as a key is the anchored scalar's text: here a repeat of `key`.
        #expect(error("&k key: v\n*k : w\n")?.message == "duplicate key 'key' (first at line 1)")
        #expect(error("a: *nowhere\n")?.message == "invalid YAML: found undefined alias")
    }

    /// 9 nested levels of 9 aliases: 9^9 values refused at once; the same at 5 levels
    /// (59,049 values plus their lists) passes.
    @Test func aliasExpansionIsBudgeted() throws {
        func bomb(_ levels: Int) -> String {
            var yml = "a: &a [x, x, x, x, x, x, x, x, x]\n"
            let names = "bcdefghijklmnop".map(String.init)
            for i in 0..<(levels - 1) {
                let prev = i == 0 ? "a" : names[i - 1]
                yml += "\(names[i]): &\(names[i]) [" + Array(repeating: "*\(prev)", count: 9).joined(separator: ", ")
                    + "]\n"
            }
            return yml
        }
        let d = error(bomb(9))
        #expect(d?.message == "YAML aliases expand to more than 100000 values (refused: an alias bomb?)")
        #expect(d?.line != nil)
        #expect(try parse(bomb(5)).scalars.count == 9 + 81 + 729 + 6561 + 59049)
        #expect(error(bomb(6)) != nil)
    }

    @Test func duplicateKeysAreReportedAtTheRepeat() throws {
        let d = error("b: 1\na: 2\nb: 3\na: 4\n")
        #expect(d?.line == 4)
        #expect(d?.message == "duplicate key 'a' (first at line 2); also repeated: b")
        #expect(error("x: {k: 1, k: 2}\n")?.message == "duplicate key 'k' (first at line 1)")
        let quoted = error("k: 1\n\"k\": 2\n")
        #expect(quoted?.line == 2)
    }

    @Test func syntaxErrorsNameTheLineAndLibyamlsProblem() throws {
        let tab = error("a:\n\tb: 1\n")
        #expect(tab?.line == 2)
        #expect(tab?.message == "invalid YAML: found character that cannot start any token")
        let indent = error("a:\n  b: 1\n c: 2\n")
        #expect(indent?.line == 3)
        #expect(indent?.message.hasPrefix("invalid YAML: ") == true)
        let open = error("a: [1, 2\nb: 3\n")
        #expect(open?.message.hasPrefix("invalid YAML: ") == true)
        let two = error("a: 1\n---\nb: 2\n")
        #expect(two?.line == 2)
        #expect(two?.message == "invalid YAML: but found another document")
        let control = error("a: 1\nb: \u{1}\n")
        #expect(control?.line == 2)
        #expect(control?.message == "invalid YAML: control characters are not allowed")
    }

    @Test func emptyInputsAreAnEmptyMapOrANull() throws {
        #expect(try parse("") == .map([], line: 1))
        #expect(try parse("# only a comment\n\n") == .map([], line: 1))
        guard case .null = try parse("---\n") else { Issue.record("not null"); return }
        #expect(try parse("--- a\n...\n") == .scalar("a", line: 1))
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        #expect(try parse("\u{FEFF}title: x\n") == .map([ConfigEntry(key: "title", keyLine: 1,
                                                                       value: .scalar("x", line: 1))], line: 1))
    }

    @Test func multiLineScalarsAndNonASCIIKeepTheirText() throws {
        let node = try parse("a: |\n  one\n  two\nb: >\n  folded\n  text\nc: \"é\\t\\u00e9\"\n名前: 値\n")
        #expect(node.scalars == ["one\ntwo\n", "folded text\n", "é\té", "値"])
    }
}
