#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines

// MARK: - The fields of one recall log line, read with the one JSON scanner

/// The fields a recall log line may carry, read straight from UTF-8 bytes without
/// building a dictionary. Unknown keys are skipped (whatever their value), so newer
/// writers can add keys.
///
/// The values that name one of a few known words (`type`, `page`, `action`, `button`,
/// `result`) stay in the line's bytes (``LineWord``) and are compared there: they were
/// a String each, made, compared and released on every line (docs/perf-study.md,
/// round seven).
struct LineFields {
    var t: Int?
    var type, page: LineWord?
    var string, field: Int?
    var key: String?
    var action: LineWord?
    var text: String?
    var x, y: Double?
    var target: String?
    var button, result: LineWord?
    var values: [String]?
    var participant, format: String?
    var strings: [String]?
    var device: String?
    /// The header's string set name (`set`).
    var set: String?
}

/// Reads the fields of one log line with ``JSONScanner`` (docs/json-lines.md): the
/// shared scanner checks the syntax; this maps the known keys to ``LineFields`` and
/// refuses a repeated key with a bit per known key (a set only for unknown ones).
struct JSONLineScanner {
    var s: JSONScanner

    init(_ p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) {
        s = JSONScanner(p, from: start, to: end)
    }

    /// Reads the line's object into `f` (a fresh ``LineFields``). The fields are filled
    /// in place: returning them copied a struct of nineteen optionals per line.
    /// A line as the apps write it is read by the fast path ``readCompactLine(into:)``;
    /// any other, and every refusal, by ``scanPlain(into:)``.
    mutating func scan(into f: inout LineFields) throws(JSONScanProblem) {
        if readCompactLine(into: &f) { return }
        f = LineFields()
        try scanPlain(into: &f)
    }

    /// The plain reader of a line: the shared scanner, key by key (the twin of
    /// ``readCompactLine(into:)``, and what reads every line that one leaves).
    mutating func scanPlain(into f: inout LineFields) throws(JSONScanProblem) {
        if s.end - s.i > JSONLimits.lineBytes {
            throw JSONScanProblem(at: s.i, "the line is longer than \(JSONLimits.lineBytes >> 20) MiB")
        }
        try s.openRecord()
        var first = true
        var seen: UInt32 = 0
        var others: Set<String> = []
        while let key = try s.nextKey(first: &first) {
            switch key {
            case .plain(let a, let b):
                let k = UnsafeBufferPointer(rebasing: s.p[a..<b])
                if try !readValue(forKey: k, seen: &seen, into: &f) {
                    try other(String(decoding: k, as: UTF8.self), &others)
                }
            case .decoded(let text):
                let known = try JSONLinesFile.withBytes(of: text) { k throws(JSONScanProblem) in
                    try readValue(forKey: k, seen: &seen, into: &f)
                }
                if !known { try other(text, &others) }
            }
        }
        try s.finish()
    }

    /// A key this version does not know: its value is skipped, once.
    private mutating func other(_ key: String, _ others: inout Set<String>) throws(JSONScanProblem) {
        if !others.insert(key).inserted { throw s.duplicate(key, at: s.keyStart) }
        try s.skipValue(depth: 1)
    }

    /// Marks the known key of bit `n` read (a second time is refused).
    private func mark(_ n: UInt32, _ seen: inout UInt32, _ k: UnsafeBufferPointer<UInt8>) throws(JSONScanProblem) {
        if seen & (1 << n) != 0 { throw s.duplicate(String(decoding: k, as: UTF8.self), at: s.keyStart) }
        seen |= 1 << n
    }

    private func keyIs(_ w: StaticString, _ k: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = w.utf8CodeUnitCount
        guard k.count == n else { return false }
        let u = w.utf8Start
        for j in 0..<n where k[j] != u[j] { return false }
        return true
    }

    /// Reads the value of `k` into its field (a known key read twice is refused); false
    /// for a key this version does not know (nothing read).
    private mutating func readValue(forKey k: UnsafeBufferPointer<UInt8>, seen: inout UInt32,
                                    into f: inout LineFields) throws(JSONScanProblem) -> Bool {
        switch k.count {
        case 1:
            if keyIs("t", k) { try mark(0, &seen, k); f.t = try s.int("t"); return true }
            if keyIs("x", k) { try mark(1, &seen, k); f.x = try s.double("x"); return true }
            if keyIs("y", k) { try mark(2, &seen, k); f.y = try s.double("y"); return true }
        case 3:
            if keyIs("key", k) { try mark(3, &seen, k); f.key = try readWord("key").label; return true }
            if keyIs("set", k) { try mark(4, &seen, k); f.set = try readWord("set").string; return true }
        case 4:
            if keyIs("type", k) { try mark(5, &seen, k); f.type = try readWord("type"); return true }
            if keyIs("page", k) { try mark(6, &seen, k); f.page = try readWord("page"); return true }
            if keyIs("text", k) { try mark(7, &seen, k); f.text = try readWord("text").string; return true }
        case 5:
            if keyIs("field", k) { try mark(8, &seen, k); f.field = try s.int("field"); return true }
        case 6:
            if keyIs("string", k) { try mark(9, &seen, k); f.string = try s.int("string"); return true }
            if keyIs("action", k) { try mark(10, &seen, k); f.action = try readWord("action"); return true }
            if keyIs("target", k) { try mark(11, &seen, k); f.target = try readWord("target").string; return true }
            if keyIs("button", k) { try mark(12, &seen, k); f.button = try readWord("button"); return true }
            if keyIs("result", k) { try mark(13, &seen, k); f.result = try readWord("result"); return true }
            if keyIs("values", k) { try mark(14, &seen, k); f.values = try readStringArray("values"); return true }
            if keyIs("format", k) { try mark(15, &seen, k); f.format = try readWord("format").string; return true }
            if keyIs("device", k) { try mark(16, &seen, k); f.device = try readWord("device").string; return true }
        case 7:
            if keyIs("strings", k) { try mark(17, &seen, k); f.strings = try readStringArray("strings"); return true }
        case 11:
            if keyIs("participant", k) {
                try mark(18, &seen, k); f.participant = try readWord("participant").string; return true
            }
        default: break
        }
        return false
    }

    /// A string value where it lies in the line (``LineWord``), or decoded.
    private mutating func readWord(_ k: String) throws(JSONScanProblem) -> LineWord {
        guard s.i < s.end, s.p[s.i] == 0x22 else { throw s.fail("\"\(k)\" must be a string") }
        switch try s.string() {
        case .plain(let a, let b): return .bytes(UnsafeBufferPointer(rebasing: s.p[a..<b]))
        case .decoded(let text): return .text(text)
        }
    }

    private mutating func readStringArray(_ k: String) throws(JSONScanProblem) -> [String] {
        guard s.i < s.end, s.p[s.i] == 0x5B else { throw s.fail("\"\(k)\" must be a list of strings") }
        s.i += 1
        var out: [String] = []
        var first = true
        while try s.nextItem(first: &first) {
            guard s.i < s.end, s.p[s.i] == 0x22 else { throw s.fail("\"\(k)\" must be a list of strings") }
            out.append(try readWord(k).string)
        }
        return out
    }
}
