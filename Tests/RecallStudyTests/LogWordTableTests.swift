import Foundation
import Testing
@testable import RecallStudy

/// Round seven's reading of a log's known words in place (``LineWord``,
/// docs/perf-study.md, "Round seven, data path") against the Strings they replace.
struct LogWordTableTests {
    /// Candidate values: every word, and near misses (prefixes, longer, other case,
    /// empty, non-ASCII).
    static let candidates = ["", "p", "pag", "pages", "Page", "PAGE", "page ", "start_test", "okay", "not_ok",
            "é", "ke", "keyx", "session", "fields", "close", "thankyou", "thank you", "up", "down", "tap",
                             "begin", "next", "verify", "memorize", "start-test", "done", "ok", "not-ok"]
        + PageKind.allCases.map(\.rawValue) + ButtonKind.allCases.map(\.rawValue)

    /// `named(in:)` and `isWord` against `init(rawValue:)` and `==` on the String, for
    /// values read in place and values that held escapes.
    @Test func wordsAsTheirStrings() {
        func check<E: RawRepresentable & Equatable>(_ table: WordTable<E>, _ s: String) where E.RawValue == String {
            var bytes = Array(s.utf8)
            bytes.withUnsafeMutableBufferPointer { b in
                for word in [LineWord.bytes(UnsafeBufferPointer(b)), .text(s)] {
                    #expect(word.named(in: table) == E(rawValue: s), "\(s)")
                    #expect(word.string == s && word.label == s)
                }
            }
        }
        for s in Self.candidates + ["start-test-start-test", "sessionsessionses", "sessionsessionse"] {
            check(NativeLog.LineType.words, s)
            check(PageKind.words, s)
            check(ButtonKind.words, s)
            check(KeyAction.words, s)
            var bytes = Array(s.utf8)
            bytes.withUnsafeMutableBufferPointer { b in
                let word = LineWord.bytes(UnsafeBufferPointer(b))
                #expect(word.isWord("ok") == (s == "ok") && word.isWord("not-ok") == (s == "not-ok"), "\(s)")
            }
        }
        for a in ["down", "up", "tap"] { check(KeyAction.words, a) }
        #expect(["down", "up", "tap"].allSatisfy { KeyAction(rawValue: $0) != nil })
    }

    /// Packed words are equal exactly when their bytes are: every length to 16 bytes,
    /// one byte changed at each place, a word and its prefixes; nil beyond 16 bytes.
    @Test func packedWordsAsBytes() {
        let base = Array("abcdefghijklmnop".utf8)
        for n in 0...16 {
            let w = Array(base[0..<n])
            #expect(PackedWord(w) != nil)
            for m in 0...16 { #expect((PackedWord(w) == PackedWord(Array(base[0..<m]))) == (n == m)) }
            for i in 0..<n {
                var v = w
                v[i] ^= 0x20
                #expect(PackedWord(v) != PackedWord(w))
            }
        }
        #expect(PackedWord(base + [0x71]) == nil)
    }

    /// One-byte labels from the table are the strings decoded from their byte.
    @Test func asciiLabelsAsDecoded() {
        for byte in UInt8(0x20)..<0x80 where byte != 0x22 && byte != 0x5C {
            var bytes = [byte]
            bytes.withUnsafeMutableBufferPointer { b in
                let word = LineWord.bytes(UnsafeBufferPointer(b))
                #expect(word.label == String(decoding: [byte], as: UTF8.self))
                #expect(Array(word.label.utf8) == [byte])
            }
        }
    }

    /// A simulated log whose every type, page, action, button and result value begins
    /// with a `\u` escape reads as the plain log does (the escaped words take the
    /// String path of ``LineWord``).
    @Test func escapedWordsReadAsPlainOnes() throws {
        var sim = Simulator(strings: .nistDesktop, seed: 7)
        sim.abandonRate = 0
        for index in 1...3 {
            let plain = sim.log(index: index)
            var escaped = plain
            for key in ["type", "page", "action", "button", "result"] {
                let pattern = try Regex("\"\(key)\":\"([a-z])")
                escaped = escaped.replacing(pattern) { m in
                    let c = m.output[1].substring!.unicodeScalars.first!.value
                    return "\"\(key)\":\"\\u00" + String(c, radix: 16)
                }
            }
            #expect(escaped != plain)
            let a = try NativeLog.parse(Data(plain.utf8), file: "p.jsonl")
            let b = try NativeLog.parse(Data(escaped.utf8), file: "p.jsonl")
            #expect(a.events == b.events && a.participant == b.participant && a.declaredStrings == b.declaredStrings)
        }
    }

    /// Messages quote an unknown word as its text, escaped or not.
    @Test func unknownWordsAreQuoted() {
        func message(_ line: String) -> String? {
            recallError {
                _ = try parseLog(
                    header + "\n{\"t\":1,\"type\":\"page\",\"page\":\"entry\",\"string\":1}\n" + line + "\n")
            }?.message
        }
        #expect(message(#"{"t":2,"type":"sw\u0069pe"}"#)?.contains("unknown event type \"swipe\"") == true)
        #expect(
            message(#"{"t":2,"type":"page","page":"sett\u0069ngs"}"#)?.contains("unknown page \"settings\"") == true)
        #expect(message(#"{"t":2,"type":"button","button":"ex\u0069t"}"#)?.contains("unknown button \"exit\"") == true)
        #expect(
            message(#"{"t":2,"type":"key","key":"a","action":"pr\u0065ss","text":"a"}"#)?.contains(
                "unknown key action \"press\"") == true)
        #expect(
            message(#"{"t":2,"type":"button","button":"verify","result":"m\u0061ybe"}"#)?.contains(
                "unknown Verify result \"maybe\"") == true)
        #expect(
            message(#"{"t":2,"type":"button","button":"verify","result":"OK"}"#)?.contains(
                "unknown Verify result \"OK\"") == true)
        #expect(
            recallError { _ = try parseLog(#"{"type":"p\u0061ge","t":1}"#) }?.message.contains("found type \"page\"")
                == true)
    }

    /// `isDeletion` against counting Characters, for every pair of texts from a set of
    /// ASCII, CR LF, combining, precomposed, emoji and empty texts and their prefixes.
    @Test func deletionAsCharacterCount() {
        let texts = ["", "a", "ab", "abc", "a\r\n", "a\r", "a\n", "\r\n", "\r\nx", "e\u{301}", "é", "ée", "e\u{301}x",
                     "👍🏽", "👍", "x👍🏽", "日本", "naïve'q", "\t;9", "=SUM(1)"]
        var all = Set(texts)
        for t in texts { for n in 0...t.count { all.insert(String(t.prefix(n))) } }
        for a in all {
            for b in all {
                #expect(
                    Analyzer.isDeletion(a, b) == (b.count < a.count), "\(a.debugDescription) → \(b.debugDescription)")
            }
            #expect(Analyzer.asciiCount(a) == (a.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? a.count : nil))
        }
        #expect(Analyzer.asciiCount("a\r\n") == nil && Analyzer.asciiCount(String(repeating: "x", count: 40)) == 40)
    }
}
