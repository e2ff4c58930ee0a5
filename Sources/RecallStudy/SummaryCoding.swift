/// A compact binary form of ``ParticipantSummary``: what a participant unit leaves in the
/// build state for the study summary. The summary of an incremental build reads every
/// participant's record, and Foundation's JSONDecoder made that most of the build
/// (docs/recall-site.md). Little-endian; Int as i64, Double as its IEEE bits, Bool as
/// one byte, String as u32 length + UTF-8, Optional as a 0/1 byte then the value, arrays
/// as u32 count then the elements, in declaration order. Version byte first.
extension ParticipantSummary {
    public static let compactVersion: UInt8 = 1

    public func compactBytes() -> [UInt8] {
        var w = CompactWriter()
        w.u8(Self.compactVersion)
        w.string(participant); w.string(source.rawValue); w.bool(complete); w.int(sessionTotalMs)
        w.int(lastEventMs); w.int(warnings)
        w.count(strings.count)
        for s in strings {
            w.int(s.n); w.bool(s.reached); w.bool(s.completed); w.double(s.meanEntrySeconds); w.int(s.entries)
            w.int(s.incorrectEntries); w.int(s.rekeys); w.int(s.deletions); w.int(s.finalCorrect)
            w.int(s.memorizeViews); w.int(s.verifyFailures); w.int(s.entryTotalMs); w.double(s.medianDownDown)
        }
        w.bool(reachedRecall); w.int(recallFields)
        w.count(recalled.count); for r in recalled { w.int(r) }
        w.double(medianHold); w.double(medianDownDown); w.double(medianUpDown); w.double(medianUpUp)
        return w.out
    }

    /// nil unless `bytes` is exactly one summary of this version.
    public init?(compactBytes bytes: UnsafeRawBufferPointer) {
        var r = CompactReader(bytes: bytes)
        guard r.u8() == Self.compactVersion,
              let participant = r.string(), let source = r.string().flatMap(SessionSource.init(rawValue:)),
              let complete = r.bool(), let sessionTotalMs = r.optionalInt(), let lastEventMs = r.int(),
              let warnings = r.int(), let n = r.count() else { return nil }
        var strings: [PerString] = []
        strings.reserveCapacity(n)
        for _ in 0..<n {
            guard let num = r.int(), let reached = r.bool(), let completed = r.bool(), let mean = r.optionalDouble(),
                  let entries = r.int(), let incorrect = r.int(), let rekeys = r.int(), let deletions = r.int(),
                  let finalCorrect = r.int(), let views = r.int(), let verifyFailures = r.int(),
                  let entryTotal = r.optionalInt(), let mdd = r.optionalDouble() else { return nil }
            strings.append(PerString(n: num, reached: reached, completed: completed, meanEntrySeconds: mean, entries: entries,
                                     incorrectEntries: incorrect, rekeys: rekeys, deletions: deletions, finalCorrect: finalCorrect,
                                     memorizeViews: views, verifyFailures: verifyFailures, entryTotalMs: entryTotal,
                                     medianDownDown: mdd))
        }
        guard let reachedRecall = r.bool(), let recallFields = r.int(), let nr = r.count() else { return nil }
        var recalled: [Int] = []
        for _ in 0..<nr { guard let v = r.int() else { return nil }; recalled.append(v) }
        guard let hold = r.optionalDouble(), let dd = r.optionalDouble(), let ud = r.optionalDouble(),
              let uu = r.optionalDouble(), r.atEnd else { return nil }
        self.init(participant: participant, source: source, complete: complete, sessionTotalMs: sessionTotalMs,
                  lastEventMs: lastEventMs, warnings: warnings, strings: strings, reachedRecall: reachedRecall,
                  recallFields: recallFields, recalled: recalled, medianHold: hold, medianDownDown: dd,
                  medianUpDown: ud, medianUpUp: uu)
    }

    /// Every stored property: a new one must be added here and to the coding above.
    init(participant: String, source: SessionSource, complete: Bool, sessionTotalMs: Int?, lastEventMs: Int,
         warnings: Int, strings: [PerString], reachedRecall: Bool, recallFields: Int, recalled: [Int],
         medianHold: Double?, medianDownDown: Double?, medianUpDown: Double?, medianUpUp: Double?) {
        self.participant = participant; self.source = source; self.complete = complete
        self.sessionTotalMs = sessionTotalMs; self.lastEventMs = lastEventMs; self.warnings = warnings
        self.strings = strings; self.reachedRecall = reachedRecall; self.recallFields = recallFields
        self.recalled = recalled; self.medianHold = medianHold; self.medianDownDown = medianDownDown
        self.medianUpDown = medianUpDown; self.medianUpUp = medianUpUp
    }
}

private struct CompactWriter {
    var out: [UInt8] = []
    mutating func u8(_ v: UInt8) { out.append(v) }
    mutating func bool(_ v: Bool) { out.append(v ? 1 : 0) }
    mutating func int(_ v: Int) { withUnsafeBytes(of: Int64(v).littleEndian) { out.append(contentsOf: $0) } }
    mutating func count(_ n: Int) { withUnsafeBytes(of: UInt32(n).littleEndian) { out.append(contentsOf: $0) } }
    mutating func int(_ v: Int?) { if let v { out.append(1); int(v) } else { out.append(0) } }
    mutating func double(_ v: Double?) {
        if let v { out.append(1); withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } } else { out.append(0) }
    }
    mutating func string(_ s: String) { count(s.utf8.count); out.append(contentsOf: s.utf8) }
}

private struct CompactReader {
    let bytes: UnsafeRawBufferPointer
    var pos = 0
    var atEnd: Bool { pos == bytes.count }
    mutating func take(_ n: Int) -> UnsafeRawBufferPointer? {
        guard n >= 0, bytes.count - pos >= n else { return nil }
        defer { pos += n }
        return UnsafeRawBufferPointer(rebasing: bytes[pos..<(pos + n)])
    }
    mutating func u8() -> UInt8? { take(1)?[0] }
    mutating func bool() -> Bool? { u8().flatMap { $0 == 1 ? true : ($0 == 0 ? false : nil) } }
    mutating func int() -> Int? { take(8).map { Int(Int64(littleEndian: $0.loadUnaligned(as: Int64.self))) } }
    mutating func count() -> Int? {
        guard let b = take(4) else { return nil }
        let n = Int(UInt32(littleEndian: b.loadUnaligned(as: UInt32.self)))
        return n <= bytes.count - pos ? n : nil
    }
    mutating func optionalInt() -> Int?? {
        guard let f = bool() else { return nil }
        return f ? int().map { .some($0) } : .some(nil)
    }
    mutating func optionalDouble() -> Double?? {
        guard let f = bool() else { return nil }
        guard f else { return .some(nil) }
        return take(8).map { .some(Double(bitPattern: UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)))) }
    }
    mutating func string() -> String? {
        guard let n = count(), let b = take(n) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }
}
