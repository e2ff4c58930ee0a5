import Foundation
import Testing
@testable import DossierKit
import SplitMix64

/// The flat front-matter reader (``FrontMatter/flat(_:firstLine:)``) against the libyaml
/// path it short-cuts: wherever it answers, it must give the composer's node (values, nulls and
/// every line number); wherever the composer would fail, it must not answer.
@Suite struct FrontMatterFastPathTests {
    /// What the composer makes of `yaml` as front matter (first line = line 2), or the error text.
    func viaComposer(_ yaml: String) -> (node: ConfigNode?, error: String?) {
        do { return (try ConfigNode.parse(yaml, file: "p.md", lineOffset: 1), nil) }
        catch { return (nil, "\(error)") }
    }

    func viaFlat(_ yaml: String) -> ConfigNode? {
        var bytes = Array(yaml.utf8)
        return bytes.withUnsafeMutableBufferPointer { FrontMatter.flat(UnsafeBufferPointer($0), firstLine: 2) }
    }

    /// Checks one input: the fast path answers only where the composer succeeds, with its node.
    func agree(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let fast = viaFlat(yaml) else { return false }
        let composed = viaComposer(yaml)
        if let e = composed.error {
            Issue.record(
                "fast path accepted what the composer refuses (\(e)): \(yaml.debugDescription)",
                sourceLocation: sourceLocation)
        } else {
            #expect(fast == composed.node, "\(yaml.debugDescription)", sourceLocation: sourceLocation)
        }
        return true
    }

    @Test func commonFlatFrontMatterTakesTheFastPathWithComposedNodesAndLines() {
        let accepted = [
            "title: \"Page 09964: flight digraph\"\nsummary: \"Generated page 9964 for the render benchmark.\"\n",
            "title: Methods\nsummary: How the study was run.\nweight: 10\ndraft: false\ntoc: true\n",
            "title: null\n", "title: Null\n", "title: NULL\n", "title: nulls\n", "title: \"null\"\n",
            "weight: 5x-\n", "weight: 007\n", "title: a  b\n", "title: 2026-01-01\n", "title: 1e3\n",
            "title: \"\"\n", "title: \"it's #1: yes {ok} [x] & *y\"\n", "a-b_c: x\n", "title:    spaced\n",
            "title: x\ntitle2: x\n", "t: a (b, c) / d + e\n", "title: true\n", "title: No\n",
        ]
        for y in accepted { #expect(agree(y), "fast path declined \(y.debugDescription)") }
    }

    @Test func anythingElseIsLeftToTheComposer() {
        let declined = [
            "", "\n", "title: x", "title:\n", "title: \n", "title: x \n", "title:\tx\n", "title: x\r\n",
            "title: x # note\n", "# c\ntitle: x\n", "title: 'x'\n", "title: \"a\\\"b\"\n", "title: \"a\" \n",
            "title: Café\n", "title: \"Café\"\n", "  title: x\n", "title: [a, b]\n", "title: {a: 1}\n",
            "title: &a x\n", "title: *a\n", "title: !!str x\n", "title: |\n  x\n", "title: >\n  x\n",
            "title: x\ntitle: y\n", "- x\n", "title: x\n\n", "title: x\n  more\n", "title: ~\n",
            "1title: x\n", "ti tle: x\n", "title: -x\n", "title: x: y\n", "title: \"a\tb\"\n",
            "%YAML 1.2\n", "title: @x\n", "title: `x`\n", "title: x,\n",
        ]
        for y in declined {
            #expect(viaFlat(y) == nil || agree(y), "\(y.debugDescription)")
        }
        // The ones that must not be answered: duplicates and non-flat shapes.
        for y in ["title: x\ntitle: y\n", "title: x # note\n", "title: Café\n", "title: x\r\n", "title:\n"] {
            #expect(viaFlat(y) == nil, "\(y.debugDescription)")
        }
    }

    /// Thousands of random lines over an alphabet of YAML's special characters: the
    /// fast path never disagrees with the composer where it answers.
    @Test func randomHostileInputsNeverDisagreeWithTheComposer() {
        let pieces = [
            "title", "summary", "a", "-", ":", ": ", " ", "  ", "\"", "'", "\\", "#", " #", "\n", "\t", "\r",
            "null", "~", "x", "1", "[", "]", "{", "}", ",", "&", "*", "!", "|", ">", "%", "@", "é", ".", "/", "(", "+"
        ]
        var rng = SplitMix64(seed: 20)
        var answered = 0
        for _ in 0..<4000 {
            var y = ""
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                y += ["title: ", "summary: ", "k-1: ", ""][Int(rng.next() % 4)]
                for _ in 0..<(Int(rng.next() % 8)) { y += pieces[Int(rng.next() % UInt64(pieces.count))] }
                y += "\n"
            }
            if agree(y) { answered += 1 }
        }
        #expect(answered > 10)   // the generator does reach the fast path
    }

    @Test func pageLoadGivesTheSameFieldsAndErrorsOnBothPaths() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func load(_ text: String) -> String {
            let url = dir.appendingPathComponent("p.md")
            try! Data(text.utf8).write(to: url)
            do {
                let p = try ContentPage.load(url, relative: "p.md")
                return "\(p.title)|\(p.summary)|\(p.weight)|\(p.draft)|\(String(describing: p.toc))"
            } catch { return "error: \(error)" }
        }
        // Each fast-path page beside the same page forced onto the composer by a comment line.
        for fm in ["title: A\nweight: x\n", "title: A\nweight: 3\ndraft: maybe\n", "title: A\ncolour: red\n",
                   "title: \"\"\n", "title: null\nsummary: S\n", "title: T\ntoc: false\ndraft: yes\n"] {
            let fast = load("---\n" + fm + "---\n# H\n")
            let slow = load("---\n" + fm + "# comment\n---\n# H\n")
            #expect(fast == slow, "\(fm.debugDescription): \(fast) vs \(slow)")
        }
    }

    /// A key repeated in front matter names both lines as lines of the content file.
    @Test func aRepeatedKeyNamesFileLines() {
        for yaml in ["title: X\nsummary: s\ntitle: Y\n", "title: X\n# c\ntitle: Y\n"] {
            do {
                _ = try FrontMatter.parse(Data(yaml.utf8), file: "x.md")
                Issue.record("no error for \(yaml.debugDescription)")
            } catch let e as DossierError {
                #expect(e.diagnostics.first?.line == 4)
                #expect(e.diagnostics.first?.message == "duplicate key 'title' (first at line 2)")
            } catch { Issue.record("\(error)") }
        }
    }
}
