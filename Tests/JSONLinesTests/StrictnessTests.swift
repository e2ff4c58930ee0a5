import Foundation
import Testing
@testable import JSONLines

/// The strictness docs/json-lines.md writes down, rule by rule: what one record line is
/// accepted as, and what is refused with which message at which line and column.
struct StrictnessTests {
    func record(_ line: String) throws(JSONLinesError) -> JNode {
        let bytes = Array(line.utf8)
        return try JSONLinesFile.withBytes(bytes) { p throws(JSONLinesError) in
            try JSONReader.record(p, from: 0, to: p.count, file: "f.jsonl", line: 7)
        }
    }

    func refusal(_ line: String) -> String {
        do { _ = try record(line); return "accepted" } catch { return error.description }
    }

    @Test func recordsAreObjects() throws {
        #expect(try record(#" {"a": [1, -0.5e2, true, null, "x"]} "#)["a"]?.items?.count == 5)
        #expect(refusal("[1, 2]")
            == "f.jsonl:7:1: not a JSON object: the line is an array (each line must be one {…} record)")
        #expect(refusal("12") == "f.jsonl:7:1: not a JSON object: the line is a number")
        #expect(refusal("true") == "f.jsonl:7:1: not a JSON object: the line is a bare word")
        #expect(refusal(#""a""#) == "f.jsonl:7:1: not a JSON object: the line is a string")
        #expect(refusal("") == "f.jsonl:7:1: the line holds no JSON value")
    }

    @Test func trailingTextAndTruncation() {
        #expect(refusal(#"{"a":1} x"#) == "f.jsonl:7:9: text after the end of the JSON value: 'x'")
        #expect(refusal(#"{"a":1}{"#).hasPrefix("f.jsonl:7:8: text after the end"))
        #expect(refusal(#"{"a":1"#) == "f.jsonl:7:7: the line ends inside an object (a '}' is missing)")
        #expect(refusal(#"{"a":[1"#) == "f.jsonl:7:8: the line ends inside a list (a ']' is missing)")
        #expect(refusal(#"{"a":"xy"#) == "f.jsonl:7:9: a string is not closed before the end of the line")
        #expect(refusal(#"{"a":1,}"#) == "f.jsonl:7:8: expected a key in double quotes, found '}'")
        #expect(refusal(#"{"a" 1}"#) == "f.jsonl:7:6: expected ':' after a key, found '1'")
        #expect(refusal(#"{"a":1 "b":2}"#) == "f.jsonl:7:8: expected ',' or '}' in an object, found '\"'")
    }

    @Test func duplicateKeysAreRefusedAtAnyDepthAndSpelling() {
        #expect(refusal(#"{"a":1,"a":1}"#) == "f.jsonl:7:8: the field 'a' appears twice")
        #expect(refusal(#"{"a":1,"b":{"c":1,"c":2}}"#) == "f.jsonl:7:19: the field 'c' appears twice")
        #expect(refusal(#"{"a":1,"\u0061":2}"#).contains("the field 'a' appears twice"))
        #expect(refusal(#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#) == "accepted")
        // Many keys (the set, not the short list, finds the repeat).
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(refusal("{" + many + "}") == "accepted")
        #expect(refusal("{" + many + ",\"k3\":0}").contains("the field 'k3' appears twice"))
    }

    @Test func stringsAndEscapes() throws {
        #expect(try record(#"{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}"#)["s"]?.stringValue
            == "\"\\/\u{8}\u{c}\n\r\té😀")
        #expect(refusal("{\"s\":\"a\u{1}b\"}") == "f.jsonl:7:8: a raw control character U+0001 inside a string "
            + "(JSON needs it escaped, e.g. \\u0001)")
        #expect(refusal(#"{"s":"\ud83d"}"#).contains("a lone surrogate"))
        #expect(refusal(#"{"s":"\ude00"}"#).contains("a lone surrogate"))
        #expect(refusal(#"{"s":"\ud83dx"}"#).contains("a lone surrogate"))
        // The column is the lone surrogate's backslash (the offending character), not after it.
        #expect(refusal(#"{"s":"\ude00"}"#).hasPrefix("f.jsonl:7:7: a lone surrogate"))
        #expect(refusal(#"{"s":"ab\ud83d\u0041"}"#).hasPrefix("f.jsonl:7:9: a lone surrogate"))
        #expect(refusal(#"{"s":"\x"}"#).contains("unknown escape \\x"))
        #expect(refusal(#"{"s":"\u12"}"#).contains("four hexadecimal digits"))
        // Columns count characters, not bytes.
        #expect(refusal(#"{"é😀":1,"é😀":2}"#).hasPrefix("f.jsonl:7:9: the field 'é😀' appears twice"))
    }

    @Test func numbers() throws {
        for ok in ["0", "-0", "1.5", "-12e3", "1E+2", "0.25e-1", "12345678901234567890"] {
            #expect(try record("{\"n\":\(ok)}")["n"]?.numberValue == Double(ok), "\(ok)")
        }
        for bad in ["01", "-", "1.", "1e", "1e+", "1.2.3", "--1", "1ee2"] {
            #expect(refusal("{\"n\":\(bad)}") == "f.jsonl:7:6: not a valid JSON number ('\(bad)')")
        }
        #expect(refusal(#"{"n":.5}"#) == "f.jsonl:7:6: not JSON: '.' cannot start a value")
        #expect(refusal(#"{"n":+1}"#) == "f.jsonl:7:6: not JSON: '+' cannot start a value")
        #expect(refusal(#"{"n":0x10}"#) == "f.jsonl:7:7: expected ',' or '}' in an object, found 'x'")
        #expect(refusal("{\"n\":" + String(repeating: "9", count: 400) + "}")
            == "f.jsonl:7:6: the number has 400 digits: too large (at most 20 before a fraction)")
        #expect(refusal(#"{"n":1e400}"#) == "f.jsonl:7:6: the number is too large for a double ('1e400')")
        #expect(refusal(#"{"n":NaN}"#).contains("cannot start a value"))
    }

    /// A value a reader skips (a field it does not know) is checked as strictly as a read
    /// one: a number that is not a finite double is refused there too.
    @Test func aSkippedNumberIsStillAFiniteDouble() {
        func skip(_ text: String) -> String {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { p in
                var s = JSONScanner(p, from: 0, to: p.count)
                do throws(JSONScanProblem) { try s.skipValue(depth: 0); return "skipped" } catch {
                    return error.message
                }
            }
        }
        #expect(skip("1e400") == "the number is too large for a double ('1e400')")
        #expect(skip("-1e400") == "the number is too large for a double ('-1e400')")
        #expect(skip("[1, {\"a\": 2e308}]") == "the number is too large for a double ('2e308')")
        #expect(skip("1.5e308") == "skipped" && skip("-0") == "skipped")
    }

    @Test func wordsDepthAndOddBytes() {
        #expect(refusal(#"{"w":tru}"#).contains("a bare word"))
        #expect(refusal(#"{"w":truex}"#).contains("a bare word"))
        #expect(refusal(#"{"w":True}"#).contains("'T' cannot start a value"))
        let deep = String(repeating: "[", count: 31) + String(repeating: "]", count: 31)
        #expect(refusal("{\"d\":\(deep)}") == "accepted")   // 32 containers with the record
        #expect(refusal("{\"d\":[\(deep)]}").contains("nested too deeply (at most 32"))
        #expect(refusal("\u{FEFF}{}").contains("U+FEFF (a byte-order mark)"))
        #expect(refusal("{\"a\":1}\u{0}").contains("U+0000"))
    }

    @Test func documentsSkipOneByteOrderMarkAndCountLines() throws {
        #expect(try JSONReader.document("\u{FEFF}{\"a\": 1}", file: "d.json")["a"]?.numberValue == 1)
        do {
            _ = try JSONReader.document("{\r\n  \"a\": 1,\r\n  \"b\": x\r\n}", file: "d.json")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "d.json:3:8: not JSON: 'x' cannot start a value")
        }
        do { _ = try JSONReader.document("{\"a\": [1,\n", file: "d.json"); Issue.record("accepted") } catch {
            #expect(error.description == "d.json:2:1: the file ends inside a list (a ']' is missing)")
        }
        var bad = Data("{\"a\": \"x".utf8); bad.append(contentsOf: [0xC3, 0x28, 0x22, 0x7D])
        do { _ = try JSONReader.document(bad, file: "d.json"); Issue.record("accepted") } catch {
            #expect(error.description == "d.json:1:9: the text is not valid UTF-8")
        }
    }

    @Test func overlongLinesAreRefused() {
        let long = "{\"a\":\"" + String(repeating: "x", count: JSONLimits.lineBytes) + "\"}"
        #expect(refusal(long) == "f.jsonl:7:1: the line is longer than 4 MiB")
    }

    @Test func linesAreCutAtLineFeeds() {
        for text in ["", "\n", "a", "a\n", "\n\n", "ab\ncd", "ab\ncd\n", "x\r\ny\n\nz"] {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { p in
                var count = 0, start = 0
                while start < p.count {
                    var stop = start
                    while stop < p.count, p[stop] != 0x0A { stop += 1 }
                    #expect(JSONLinesFile.lineEnd(p, from: start) == stop, "\(text.debugDescription) from \(start)")
                    count += 1
                    start = stop + 1
                }
                #expect(JSONLinesFile.lineCount(p) == count, "\(text.debugDescription)")
            }
        }
    }
}
