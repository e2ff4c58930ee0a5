import CompactBinary

/// A compact binary form of ``ParticipantSummary``: what a participant unit leaves in the
/// build state for the study summary. The summary of an incremental build reads every
/// participant's record, and Foundation's JSONDecoder made that most of the build
/// (docs/recall-site.md). Little-endian; Int as i64, Double as its IEEE bits, Bool as
/// one byte, String as u32 length + UTF-8, Optional as a 0/1 byte then the value, arrays
/// as u32 count then the elements, in declaration order. Version byte first.
extension ParticipantSummary {
    public static let compactVersion: UInt8 = 1

    public func compactBytes() -> [UInt8] {
        var w = CompactWriter(capacity: 64 + 96 * strings.count)
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
        return w.bytes
    }

    /// nil unless `bytes` is exactly one summary of this version.
    public init?(compactBytes bytes: UnsafeRawBufferPointer) {
        var r = CompactReader(bytes)
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
            strings.append(
                PerString(
                    n: num, reached: reached, completed: completed, meanEntrySeconds: mean, entries: entries,
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
