import Foundation
import Testing
@testable import Render

@Suite struct CSVWriterTests {
    @Test func quotesOnlyWhenNeededAndEndsRecordsWithCRLF() {
        var w = CSVWriter(header: ["a", "b"])
        w.append(["plain", "with,comma"])
        w.append(["say \"hi\"", "two\nlines"])
        w.append([CSVWriter.number(-3.5), " padded"])
        #expect(w.text == "a,b\r\nplain,\"with,comma\"\r\n\"say \"\"hi\"\"\",\"two\nlines\"\r\n-3.5,\" padded\"\r\n")
    }

    @Test func formulaCellsAreNeutralisedButNumbersAreNot() {
        var w = CSVWriter()
        w.append(["=1+1", "+x", "-y", "@SUM(A1)", "\tt", "ok"])
        w.append([CSVWriter.number(-2)])
        #expect(w.text == "'=1+1,'+x,'-y,'@SUM(A1),'\tt,ok\r\n-2\r\n")
    }

    @Test func bomIsOptional() {
        #expect(CSVWriter(header: ["x"], includeBOM: true).text.hasPrefix("\u{FEFF}x"))
        #expect(CSVWriter(header: ["x"]).text == "x\r\n")
    }

    @Test func readerRoundTripsWriterOutput() throws {
        let cells = ["=HYPERLINK(\"http://x\")", "a,b", "q\"uote", "multi\r\nline", "", "ünï"]
        var w = CSVWriter(includeBOM: true, neutraliseFormulas: false)
        w.append(texts: cells)
        let back = try CSVReader.parse(w.text)
        #expect(back.count == 1)
        #expect(back[0].fields == cells)
    }

    @Test func readerReportsUnterminatedQuoteWithLine() {
        #expect(throws: CSVReader.Failure.unterminatedQuote(line: 2)) { try CSVReader.parse("a\n\"b,c\n") }
    }

    /// The acceptance test: Python's csv module reads our file back as the intended text.
    @Test func pythonCSVReaderReadsTheIntendedText() throws {
        let cells = ["=HYPERLINK(\"http://evil.example\",\"click\")", "Smith, Jane", "6\" ruler", "line one\nline two"]
        var w = CSVWriter(header: ["formula", "comma", "quote", "newline"])
        w.append(texts: cells)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("csvtest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("t.csv")
        try w.data.write(to: file)
        let script =
            "import csv,json,sys\nwith open(sys.argv[1], newline='', encoding='utf-8') as f: "
                + "print(json.dumps(list(csv.reader(f))))"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, file.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let rows = try JSONDecoder().decode([[String]].self, from: out)
        #expect(rows.count == 2)
        #expect(rows[1][0] == "'" + cells[0])   // shown as text in Excel, never evaluated
        #expect(Array(rows[1][1...]) == Array(cells[1...]))
    }
}

@Suite struct CSVHostileCellTests {
    @Test func onlyPlainDecimalsAreNumbers() {
        for ok in ["0", "-12", "3.25", "1e-07", "-1.5E+20"] { #expect(CSVWriter.isPlainNumber(ok), "\(ok)") }
        for bad in ["-nan(SUM)", "-inf", "inf", "nan", "-0x1p4", "+5", "1.", ".5", "1e", "--1", "", "1 ", "٣"] {
            #expect(!CSVWriter.isPlainNumber(bad), "\(bad)")
        }
    }

    @Test func numberLookAlikesAreWrittenAsNeutralisedText() {
        var w = CSVWriter()
        w.append(["-nan(SUM)", "-inf", "-0x1p4", "-2.5"].map(CSVWriter.cell))
        w.append([.number("-inf"), .number("1e5")])
        #expect(w.text == "'-nan(SUM),'-inf,'-0x1p4,-2.5\r\n'-inf,1e5\r\n")
    }

    @Test func controlCharactersInTextCellsBecomeReplacementCharacters() {
        var w = CSVWriter()
        w.append(["a\u{0}b\u{7}c\u{1B}d\u{85}e", "tab\tkept"])
        #expect(w.text == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e,tab\tkept\r\n")
    }

    @Test func withBOMAddsTheMarkOnce() {
        let plain = Data("a\r\n".utf8)
        let marked = CSVWriter.withBOM(plain, true)
        #expect(Array(marked.prefix(3)) == CSVWriter.bom)
        #expect(CSVWriter.withBOM(marked, true) == marked)
        #expect(CSVWriter.withBOM(plain, false) == plain)
    }
}

@Suite struct JSONValueTests {
    @Test func keysAreSortedAndNumbersStable() {
        let v: JSONValue = ["b": 1, "a": [1.5, 2.0, 0.1, -0.0, 1e-7], "é": "x\n\"y\"", "n": nil]
        #expect(v.serialized(pretty: false) == "{\"a\":[1.5,2,0.1,0,1e-07],\"b\":1,\"n\":null,\"é\":\"x\\n\\\"y\\\"\"}")
    }

    @Test func controlCharactersAndLineSeparatorsAreEscaped() {
        let v: JSONValue = .string("a\u{08}b\u{1F}c\u{2028}d\té")
        #expect(v.serialized(pretty: false) == "\"a\\u0008b\\u001fc\\u2028d\\té\"")
    }

    @Test func formatNumberRoundsToTenSignificantDigits() {
        #expect(JSONValue.formatNumber(1.0 / 3.0) == "0.3333333333")
        #expect(JSONValue.formatNumber(487.83351234567) == "487.8335123")
        #expect(JSONValue.formatNumber(.nan) == "null")
        #expect(JSONValue.formatNumber(-12) == "-12")
    }

    @Test func encodableGoesThroughTheSameWriter() throws {
        struct S: Encodable { var z = 1; var a = 0.25; var m = "é" }
        let text = String(decoding: try JSONOutput.encode(S()), as: UTF8.self)
        #expect(text == "{\n  \"a\": 0.25,\n  \"m\": \"é\",\n  \"z\": 1\n}\n")
    }
}

@Suite struct SitePathTests {
    @Test func rootDepth() {
        #expect(SitePaths.root(from: "index.html") == "")
        #expect(SitePaths.root(from: "a/index.html") == "../")
        #expect(SitePaths.root(from: "a/b/c.html") == "../../")
    }

    @Test func resolveRelativeAbsoluteAndExternal() {
        #expect(SitePaths.resolve("../x/", from: "a/b/index.html") == "a/x/index.html")
        #expect(SitePaths.resolve("/s.css?v=1", from: "a/index.html") == "s.css")
        #expect(SitePaths.resolve("img%20one.png#f", from: "a/index.html") == "a/img one.png")
        #expect(SitePaths.resolve("https://x.org/", from: "index.html") == nil)
        #expect(SitePaths.resolve("//cdn.x/y.js", from: "index.html") == nil)
        #expect(SitePaths.resolve("../../..", from: "index.html") == "../")
    }
}

@Suite struct HTMLTests {
    @Test func escapesEveryMarkupCharacter() {
        #expect(HTML.escape("<b>x</b>&amp;\"'") == "&lt;b&gt;x&lt;/b&gt;&amp;amp;&quot;&#39;")
    }

    @Test func scriptSafeJSONCannotCloseTheScriptBlock() {
        #expect(
            HTML.scriptSafeJSON("{\"t\":\"</script><b>&\"}")
                == "{\"t\":\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026\"}")
    }
}
