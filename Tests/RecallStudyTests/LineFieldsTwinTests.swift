import Foundation
import JSONLines
import Testing
@testable import RecallStudy

/// The log's field reader (`JSONLineScanner`, the shared scanner read field by field,
/// nothing built) against its plain twin: the shared reader's whole tree of the same line
/// (`JSONReader.record`), on random lines and random damage to them. A line the tree
/// refuses is refused with the same message and column; a line it accepts gives the same
/// fields (or, for a value of the wrong type, a message naming the field).
struct LineFieldsTwinTests {
    static let pieces = [#""t":12"#, #""t":-3"#, #""t":1.5"#, #""type":"key""#, #""type":"pa\u0067e""#,
                         #""page":"entry""#, #""string":4"#, #""field":2"#, #""key":"a""#, #""key":"\"""#,
                         #""action":"down""#, #""text":"é\n😀""#, #""x":10.5"#, #""y":-2e1"#, #""target":"f""#,
                         #""button":"verify""#, #""result":"ok""#, #""values":["x","\u0041"]"#, #""values":[]"#,
                         #""participant":"P1""#, #""format":"recall-log/1""#, #""strings":["1","2"]"#,
                         #""device":"d""#, #""set":"s""#, #""extra":{"a":[1,{"b":null}],"c":true}"#,
                         #""other":false"#, #""\u0074":5"#, #""t":"5""#, #""values":"x""#]

    func fields(_ line: String) -> Result<LineFields, JSONLinesError> {
        let bytes = [UInt8](line.utf8)
        return bytes.withUnsafeBufferPointer { p -> Result<LineFields, JSONLinesError> in
            var s = JSONLineScanner(p, from: 0, to: p.count)
            var f = LineFields()
            do throws(JSONScanProblem) { try s.scan(into: &f) } catch {
                return .failure(s.s.located(error, file: "l", firstLine: 1))
            }
            // Copy the in-line words out while the buffer lives.
            f.type = f.type.map { .text($0.string) }; f.page = f.page.map { .text($0.string) }
            f.action = f.action.map { .text($0.string) }; f.button = f.button.map { .text($0.string) }
            f.result = f.result.map { .text($0.string) }
            return .success(f)
        }
    }

    func tree(_ line: String) -> Result<JNode, JSONLinesError> {
        let bytes = [UInt8](line.utf8)
        return bytes.withUnsafeBufferPointer { p -> Result<JNode, JSONLinesError> in
            Result { () throws(JSONLinesError) in try JSONReader.record(p, from: 0, to: p.count, file: "l", line: 1) }
        }
    }

    /// A value of the wrong type for its field ("t" must be a whole number, …).
    func isTypeMessage(_ e: JSONLinesError) -> Bool {
        e.message.hasPrefix("\"") && (e.message.contains("must be") || e.message.contains("too large"))
    }

    func check(_ line: String) {
        switch (fields(line), tree(line)) {
        case (.failure(let a), .failure(let b)):
            // The same refusal, or the fast path stopped earlier at a value of the wrong type.
            #expect(a == b || (isTypeMessage(a) && a.column <= b.column), "\(line): \(a) / \(b)")
        case (.success, .failure(let b)): Issue.record("fast path accepted \(line); tree: \(b)")
        case (.failure(let a), .success): #expect(isTypeMessage(a), "\(line): \(a)")
        case (.success(let f), .success(let n)):
            func num(_ k: String) -> Double? { n[k]?.numberValue }
            #expect(f.t.map(Double.init) == num("t") && f.x == num("x") && f.y == num("y"), "\(line)")
            #expect(f.string.map(Double.init) == num("string") && f.field.map(Double.init) == num("field"), "\(line)")
            #expect(f.type?.string == n["type"]?.stringValue && f.page?.string == n["page"]?.stringValue, "\(line)")
            #expect(f.key == n["key"]?.stringValue && f.text == n["text"]?.stringValue, "\(line)")
            #expect(f.action?.string == n["action"]?.stringValue && f.target == n["target"]?.stringValue, "\(line)")
            #expect(f.button?.string == n["button"]?.stringValue && f.result?.string == n["result"]?.stringValue)
            #expect(f.values == n["values"]?.items?.compactMap(\.stringValue), "\(line)")
            #expect(f.strings == n["strings"]?.items?.compactMap(\.stringValue), "\(line)")
            #expect(f.participant == n["participant"]?.stringValue && f.format == n["format"]?.stringValue)
            #expect(f.device == n["device"]?.stringValue && f.set == n["set"]?.stringValue, "\(line)")
        }
    }

    @Test func fieldsAsTheTree() {
        var g = SystemRandomNumberGenerator()
        let damage = ["", "\"", "{", "}", ",", ":", "\\", "[", "x", "\u{1}", "1", " ", "é"]
        for _ in 0..<4_000 {
            var line = "{" + (0..<Int.random(in: 0...6, using: &g)).map { _ in
                Self.pieces.randomElement(using: &g)!
            }.joined(separator: ",") + "}"
            if Bool.random(using: &g) {
                var b = Array(line)
                let at = Int.random(in: 0...b.count, using: &g)
                switch Int.random(in: 0...2, using: &g) {
                case 0: b.insert(contentsOf: damage.randomElement(using: &g)!, at: at)
                case 1: if at < b.count { b.remove(at: at) }
                default: b = Array(b.prefix(at))
                }
                line = String(b)
            }
            check(line)
        }
    }
}
