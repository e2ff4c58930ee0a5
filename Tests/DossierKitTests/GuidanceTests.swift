import Foundation
import Render
import Testing
@testable import DossierKit

// Issue #33: a configuration that guides (did you mean, duplicates at the duplicate),
// a build log that shows progress, contents on long pages.

@Suite struct KeySuggestionTests {
    private func loadError(_ yml: String) throws -> Diagnostic {
        let p = try TestProject(files: ["dossier.yml": yml])
        defer { p.remove() }
        do { _ = try Project.load(p.root) } catch let e as DossierError { return try #require(e.diagnostics.first) }
        Issue.record("should fail: \(yml)")
        throw DossierError("no error")
    }

    @Test func topLevelTypoSuggestsTheKey() throws {
        let d = try loadError("titel: x\n")
        #expect(d.line == 1)
        #expect(d.message.hasPrefix("unknown key 'titel'; did you mean 'title'?"), "\(d.message)")
        let s = try loadError("title: x\nexperiments:\n  input: data\n")
        #expect(s.line == 2 && s.message.contains("did you mean 'experiences'?"), "\(s.message)")
    }

    @Test func nestedBlocksSuggestToo() throws {
        let md = try loadError("title: x\nmarkdown:\n  unsfae: true\n")
        #expect(
            md.line == 3 && md.message.contains("markdown: unknown key 'unsfae'; did you mean 'unsafe'?"),
            "\(md.message)")
        let csv = try loadError("title: x\ncsv:\n  bmo: false\n")
        #expect(csv.message.contains("did you mean 'bom'?"), "\(csv.message)")
    }

    @Test func aFarKeyGetsTheListOnly() throws {
        let d = try loadError("zzzzzzzz: 1\n")
        #expect(!d.message.contains("did you mean"))
        #expect(d.message.contains("(known: "))
    }

    @Test func suggestionRule() {
        #expect(
            KeySuggestion.closest(to: "pasword_file", in: ["vault", "password_file", "password_env"]) == [
                "password_file"
            ])
        #expect(KeySuggestion.closest(to: "sotre", in: ["store"]) == ["store"])           // a swap costs 1
        #expect(KeySuggestion.closest(to: "out", in: ["output"]) == ["output"])           // a prefix of ≥ 3
        #expect(KeySuggestion.closest(to: "ab", in: ["xy"]).isEmpty)
        #expect(KeySuggestion.distance("kitten", "sitting") == 3)
    }

    @Test func sectionTypoIsSuggestedFromTheKeysTheSectionReads() async throws {
        let p = try TestProject(files: [
            "dossier.yml": "title: x\nsms:\n  keystores: k.keystore\n  pasword_file: pw.txt\n",
            "k.keystore": "not a keystore", "pw.txt": "pw\n"
        ])
        defer { p.remove() }
        do { try await p.build(); Issue.record("should fail") } catch let e as DossierError {
            let typo = e.diagnostics.first { $0.message.contains("pasword_file") }
            #expect(typo?.line == 4, "\(e.diagnostics)")
            #expect(typo?.message.contains("did you mean 'password_file'?") == true, "\(e.diagnostics)")
        }
    }

    @Test func duplicateKeyIsReportedAtTheDuplicate() throws {
        let d = try loadError("title: a\ndescription: b\n\ntitle: c\n")
        #expect(d.line == 4, "\(d)")
        #expect(d.message.contains("duplicate key 'title' (first at line 1)"), "\(d.message)")
        let nested = try loadError("title: a\nrecall:\n  strings: s.txt\n  logs: l\n  strings: t.txt\n")
        #expect(nested.line == 5, "\(nested)")
        #expect(KeySuggestion.duplicateLine(in: "a: {x: 1, x: 2}\n", key: "x", line: 1, column: 5) == 1)
    }
}

@Suite struct BuildLogProgressTests {
    final class Lines: @unchecked Sendable {
        var text: [String] = []
        let lock = NSLock()
        func add(_ s: String) { lock.lock(); text.append(s); lock.unlock() }
    }

    @Test func plainLinesAtQuartersWhenNotATerminal() {
        let out = Lines()
        let log = BuildLog(level: .normal, sink: { out.add($0) }, terminal: false)
        for i in 1...400 { log.progress(i, of: 400, label: "recall") }
        #expect(
            out.text == ["    recall: 100/400 (25%)\n", "    recall: 200/400 (50%)\n", "    recall: 300/400 (75%)\n"])
        let small = Lines()
        let few = BuildLog(level: .normal, sink: { small.add($0) }, terminal: false)
        for i in 1...99 { few.progress(i, of: 99, label: "recall") }
        #expect(small.text.isEmpty)
    }

    @Test func aBarWithCountsAndTimeLeftOnATerminal() {
        let out = Lines()
        let log = BuildLog(level: .normal, sink: { out.add($0) }, terminal: true)
        log.progress(1, of: 400, label: "recall")
        log.progress(100, of: 400, label: "recall")       // a tenth done: the time left is shown
        log.progress(400, of: 400, label: "recall")
        #expect(out.text[0].contains("1/400") && !out.text[0].contains("left"))
        #expect(out.text.contains { $0.contains("400/400") })
        #expect(out.text.last == "\r\u{1B}[K")
        #expect(BuildLog.duration(0.2) == "1 s" && BuildLog.duration(65) == "1 min 05 s")
    }

    @Test func nothingWhenQuiet() {
        let out = Lines()
        for terminal in [true, false] {
            let log = BuildLog(level: .quiet, sink: { out.add($0) }, terminal: terminal)
            for i in 1...400 { log.progress(i, of: 400, label: "recall") }
        }
        #expect(out.text.isEmpty)
    }
}

@Suite struct PageContentsTests {
    @Test func longTemplatePagesGetContentsAndIds() throws {
        let html =
            "<h1>T</h1><h2>Strings</h2><p>x</p><h2 id=\"data\">Data &amp; files</h2><h2>Strings</h2><h2>Last "
                + "<small>(a)</small></h2>"
        let (out, toc) = try #require(PageContents.add(to: html))
        #expect(toc.map(\.text) == ["Strings", "Data & files", "Strings", "Last (a)"])
        #expect(toc.map(\.anchor) == ["strings", "data", "strings-1", "last-a"])
        #expect(
            out
                == "<h1>T</h1><h2 id=\"strings\">Strings</h2><p>x</p><h2 id=\"data\">Data &amp; files</h2><h2 "
                    + "id=\"strings-1\">Strings</h2><h2 id=\"last-a\">Last <small>(a)</small></h2>"
        )
        #expect(PageContents.add(to: "<h2>a</h2><h2>b</h2><h2>c</h2>") == nil)
    }
}
