import Foundation
import Testing
@testable import RecallStudy

/// participant.json is written directly (``ParticipantResult/jsonBytes()``); its bytes
/// must stay those of Foundation's JSONEncoder with sorted keys and unescaped slashes.
@Suite struct ParticipantJSONTests {
    static func encoderBytes(_ r: ParticipantResult) throws -> [UInt8] {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try enc.encode(r))
    }

    @Test func simulatedParticipantsMatchJSONEncoderByteForByte() throws {
        let strings = try studyStrings()
        let sim = Simulator(strings: strings, seed: 11)
        for i in 1...12 {
            let log = try NativeLog.parse(Data(sim.log(index: i).utf8), file: "S\(i).jsonl")
            let r = try Analyzer.analyze(log, strings: strings)
            let ours = r.jsonBytes(), theirs = try Self.encoderBytes(r)
            #expect(ours == theirs, "participant \(i): \(String(decoding: ours.prefix(300), as: UTF8.self))")
            #expect(r.jsonData() == Data(theirs))
        }
    }

    @Test func hostileTextAndNumbersMatchJSONEncoder() throws {
        let strings = try studyStrings()
        let log = try NativeLog.parse(Data(Simulator(strings: strings, seed: 5).log(index: 3).utf8), file: "S3.jsonl")
        var r = try Analyzer.analyze(log, strings: strings)
        var controls = ""
        for c in 0..<0x20 { controls.unicodeScalars.append(Unicode.Scalar(UInt8(c))) }
        r.participant = "a\"b\\c/d" + controls + "\u{7F}é😀\u{2028}\u{2029}"
        r.device = "</script> & \u{FEFF}"
        r.medianHold = 1e-05; r.medianDownDown = 123456789012345678.0; r.medianUpDown = -0.0; r.medianUpUp = 0.1 + 0.2
        r.sessionTotalMs = Int.min; r.lastEventMs = Int.max
        r.warnings = [RecallWarning(file: "x\ny.jsonl", line: nil, "tab\there"), RecallWarning(file: "f", line: 7, "")]
        r.strings[0].meanEntrySeconds = 2.0
        r.strings[1].meanEntrySeconds = 1e300
        r.strings[2].meanEntrySeconds = Double.leastNonzeroMagnitude
        r.recall = nil
        #expect(r.jsonBytes() == (try Self.encoderBytes(r)))
        r.device = nil
        r.strings = []; r.pageTurns = []; r.warnings = []
        #expect(r.jsonBytes() == (try Self.encoderBytes(r)))
    }

    /// Strings with one character needing an escape each (the fast path copies a string
    /// only when it has none), and plain ones, as the encoder writes them.
    @Test func eachEscapedCharacterAloneMatchesJSONEncoder() throws {
        let strings = try studyStrings()
        let log = try NativeLog.parse(Data(Simulator(strings: strings, seed: 5).log(index: 2).utf8), file: "S2.jsonl")
        var r = try Analyzer.analyze(log, strings: strings)
        for text in ["a\\b", "\\", "a\"b", "\"", "a\u{1}b", "\u{1F}", "a\nb", "", "plain", "é/😀", "\u{7F}x"] {
            r.participant = text
            r.device = text + text
            #expect(r.jsonBytes() == (try Self.encoderBytes(r)), "\(text.debugDescription)")
        }
    }

    /// The in-place writer's edge cases: empty, one byte, `é` as one scalar and as e +
    /// U+0301, CR LF, and texts far larger than the writer's first buffer (it grows in
    /// the middle of a string, escaped or not), as the encoder writes them.
    @Test func edgeTextsAndGrowthMatchJSONEncoder() throws {
        let strings = try studyStrings()
        let log = try NativeLog.parse(Data(Simulator(strings: strings, seed: 5).log(index: 4).utf8), file: "S4.jsonl")
        var r = try Analyzer.analyze(log, strings: strings)
        let huge = String(repeating: "y", count: 200_000)
        for text in ["", "a", "é", "e\u{301}", "\r\n", "a\r\nb", huge, huge + "\"\r\n", "\u{1}" + huge] {
            r.participant = text
            r.device = text
            r.warnings = [RecallWarning(file: text, line: 1, text), RecallWarning(file: "f", line: nil, text)]
            #expect(r.jsonBytes() == (try Self.encoderBytes(r)), "\(text.prefix(20).debugDescription)")
            #expect(r.jsonData() == Data(try Self.encoderBytes(r)), "\(text.prefix(20).debugDescription)")
        }
        r.strings = []; r.pageTurns = []; r.warnings = []; r.recall = nil; r.device = nil; r.participant = ""
        #expect(r.jsonBytes() == (try Self.encoderBytes(r)))
        #expect(r.jsonData() == Data(try Self.encoderBytes(r)))
    }

    /// Whole numbers and halves written from their digits (round seven) against
    /// `description` without a trailing `.0`, the path they replace: every half to
    /// ±2,000, around the 10⁹ bound, signed zeros, non-halves, at random.
    @Test func doublesAsTheirDescription() {
        func reference(_ v: Double) -> [UInt8] {
            var s = v.description
            if s.hasSuffix(".0") { s.removeLast(2) }
            return Array(s.utf8)
        }
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1, -1, 999_999_999, 999_999_999.5, 1e9, 1e9 + 0.5, -1e9, 1e15, 1e16,
                                0.25, 1.0 / 3.0, 123.456, .infinity, -.infinity, .nan, .ulpOfOne, 4.9e-324]
        for k in -4000...4000 { values.append(Double(k) / 2) }
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            values.append(Double(Int.random(in: -3_000_000_000...3_000_000_000, using: &g)) / 2)
            values.append(Double.random(in: -1e4...1e4, using: &g))
        }
        for v in values {
            var bytes: [UInt8] = [0x5B]
            JSONBytes.appendDouble(v, to: &bytes)
            #expect(bytes == [0x5B] + reference(v), "\(v)")
        }
    }
}

