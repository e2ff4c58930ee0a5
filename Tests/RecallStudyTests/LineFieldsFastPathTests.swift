import Foundation
import JSONLines
import Testing
@testable import RecallStudy

/// The fast path of the log's field reader (`readCompactLine`, a line as the apps write
/// it read straight from its bytes) against its plain twin (`scanPlain`, the shared
/// scanner key by key): wherever the fast path takes a line, the plain reader must accept
/// it with the same fields; and the fast path must take the lines the apps write.
struct LineFieldsFastPathTests {
    /// Every field of `f` as text (the in-line words read while the buffer lives).
    static func describe(_ f: LineFields) -> String {
        let words = [f.type, f.page, f.action, f.button, f.result].map { $0.map { "<\($0.string)>" } ?? "nil" }
        let numbers: [String] = [f.t.map { "\($0)" }, f.string.map { "\($0)" }, f.field.map { "\($0)" },
                                 f.x.map { "\($0.bitPattern)" }, f.y.map { "\($0.bitPattern)" }].map { $0 ?? "nil" }
        let texts = [f.key, f.text, f.target, f.participant, f.format, f.device, f.set]
            .map { $0.map { "<\($0)>" } ?? "nil" }
        let lists = [f.values, f.strings].map { $0.map { "\($0)" } ?? "nil" }
        return (words + numbers + texts + lists).joined(separator: "|")
    }

    enum Read: Equatable {
        case fast(String)
        case plain(String)
        case refused(JSONLinesError)
    }

    /// The fast path's reading (nil where it leaves the line) and the plain reader's.
    static func both(_ line: String) -> (fast: String?, plain: Read) {
        let bytes = [UInt8](line.utf8)
        return bytes.withUnsafeBufferPointer { p in
            var fast = JSONLineScanner(p, from: 0, to: p.count)
            var f = LineFields()
            let took = fast.readCompactLine(into: &f)
            #expect(fast.s.i == 0, "the fast path moved the scanner: \(line)")
            var plain = JSONLineScanner(p, from: 0, to: p.count)
            var g = LineFields()
            let read: Read
            do throws(JSONScanProblem) {
                try plain.scanPlain(into: &g)
                read = .plain(describe(g))
            } catch {
                read = .refused(plain.s.located(error, file: "l", firstLine: 1))
            }
            return (took ? describe(f) : nil, read)
        }
    }

    /// Checks one line; returns whether the fast path took it.
    @discardableResult
    static func check(_ line: String) -> Bool {
        let (fast, plain) = both(line)
        guard let fast else { return false }
        #expect(plain == .plain(fast), "\(line): fast \(fast), plain \(plain)")
        return true
    }

    static let pieces = [
        #""t":12"#, #""t":-3"#, #""t":0"#, #""t":-0"#, #""t":012"#, #""t":1.5"#, #""t":1e3"#, #""t":"5""#,
        #""t":123456789012345678"#, #""t":1234567890123456789"#, #""t":99999999999999999999"#,
        #""type":"key""#, #""type":"pa\u0067e""#, #""type":"focus""#, #""page":"entry""#, #""page":"recall""#,
        #""string":4"#, #""field":2"#, #""field":null"#, #""key":"a""#, #""key":"\"""#, #""key":"⌫""#,
        #""key":"é""#, #""action":"down""#, #""action":"up""#, #""text":"5c2'Qe""#, #""text":"é\n😀""#,
        #""text":"""#, #""text":"a b""#, #""text":"x\u{7F}""#, #""x":10"#, #""x":10.5"#, #""x":-0"#,
        #""y":-2e1"#, #""y":417"#, #""x":1234567890123456"#, #""y":123456789012345"#, #""target":"next""#,
        #""button":"verify""#, #""result":"ok""#, #""values":["x","\u0041"]"#, #""values":[]"#,
        #""values":["",""]"#, #""values":["a" ]"#, #""values":"x""#, #""participant":"P1""#,
        #""format":"recall-log/1""#, #""strings":["1","2"]"#, #""device":"d""#, #""set":"s""#,
        #""extra":{"a":[1,{"b":null}],"c":true}"#, #""other":false"#, #""\u0074":5"#, #""t" :5"#,
        #""t": 5"#, #""":1"#, #""x":147.33333333333"#, #""x":0.1"#, #""y":-0.0"#, #""x":1."#, #""x":.5"#,
        #""y":123456789.0123456"#, #""y":00.5"#, #""x":-"#,
    ]

    @Test func fastPathReadsAsThePlainReader() {
        var g = SeededRandom(seed: 44)
        let damage = ["", "\"", "{", "}", ",", ":", "\\", "[", "]", "x", "\u{1}", "\t", "1", "-", " ", "é"]
        var taken = 0
        for n in 0..<20_000 {
            var line = "{" + (0..<g.int(0...7)).map { _ in Self.pieces[g.int(0...(Self.pieces.count - 1))] }
                .joined(separator: ",") + "}"
            if n % 2 == 1 {
                var b = Array(line)
                let at = g.int(0...b.count)
                switch g.int(0...3) {
                case 0: b.insert(contentsOf: damage[g.int(0...(damage.count - 1))], at: at)
                case 1: if at < b.count { b.remove(at: at) }
                case 2: b = Array(b.prefix(at))
                default: b += [" ", "\r", "\t"][g.int(0...2)].map { $0 }
                }
                line = String(b)
            }
            if Self.check(line) { taken += 1 }
        }
        // The check above is only as good as the lines the fast path takes.
        #expect(taken > 1_000, "the fast path took only \(taken) of 20,000 lines")
    }

    @Test func edgeLines() {
        let taken = [#"{"t":0,"type":"key"}"#, #"{"x":-0,"y":0}"#, #"{"t":-123456789012345678}"#,
                     #"{"values":[]}"#, #"{"values":["a","b"]}"#, "{\"text\":\"\u{7F}é😀\"}", #"{"key":""}"#,
                     #"{"x":0.1,"y":-0.0}"#, #"{"x":147.33333333333,"y":99999999999999.9}"#]
        for line in taken { #expect(Self.check(line), "\(line) should take the fast path") }
        let left = ["", "{}", " {\"t\":1}", "{\"t\":1} ", "{\"t\":1,}", "{\"t\":1", "{\"t\":1}}", "{\"t\":01}",
                    "{\"t\":1,\"t\":2}", "{\"t\":1.0}", "{\"t\":1e2}", "{\"t\":-}", "{\"x\":1234567890123456}",
                    "{\"t\":1234567890123456789}", "{\"text\":\"a\\nb\"}", "{\"text\":\"a\u{1}\"}", "{\"text\":\"a}",
                    "{\"q\":1}", "{\"participant\":\"P\"}", "{\"t\" :1}", "{\"t\":\"1\"}", "{\"type\":1}",
                    "{\"values\":[1]}", "{\"values\":[\"a\",]}", "{\"values\":[\"a\"}", "[1]", "{\"t\":1}x"]
        for line in left {
            #expect(!Self.check(line), "\(line) should be left to the plain reader")
        }
    }

    /// Coordinates with fractions: the fast path's quotient of integers against the plain
    /// reader's `Double(text)`, bit for bit.
    @Test func coordinatesAsThePlainReader() {
        var g = SeededRandom(seed: 45)
        func digits(_ n: Int) -> String { (0..<n).map { _ in String(g.int(0...9)) }.joined() }
        for _ in 0..<50_000 {
            let whole = g.chance(0.2) ? "0" : String(g.int(1...9)) + digits(g.int(0...8))
            let fraction = digits(g.int(0...9))
            var text = whole + (fraction.isEmpty ? "" : "." + fraction)
            if g.chance(0.5) { text = "-" + text }
            let line = #"{"x":"# + text + "}"
            #expect(Self.check(line) == (whole.count + fraction.count <= 15), "\(line)")
        }
    }

    /// The lines the simulator writes (every event kind, taps and down/up pairs): every
    /// one but the header is taken by the fast path, with the plain reader's fields.
    @Test func simulatedLogsTakeTheFastPath() throws {
        let strings = try studyStrings()
        for (seed, taps) in [(UInt64(3), false), (4, true)] {
            var sim = Simulator(strings: strings, seed: seed)
            sim.tapsOnly = taps
            for index in 1...4 {
                let lines = sim.log(index: index).split(separator: "\n").map(String.init)
                #expect(!Self.check(lines[0]), "the header is left to the plain reader")
                for line in lines.dropFirst() { #expect(Self.check(line), "\(line)") }
            }
        }
    }
}
