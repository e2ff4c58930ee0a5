// The end of the walk over a session's events: per-string totals, medians and the participant's
// result (docs/recall-measures.md).

#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

extension Walk {
    // MARK: Finish

    mutating func finish() -> ParticipantResult {
        let endT = lastT
        leavePage(at: endT)
        var allHold: [Int] = [], allDD: [Int] = [], allUD: [Int] = [], allUU: [Int] = []
        for i in results.indices {
            var r = results[i]
            if let s = r.entryStart {
                r.entryTotalMs = (r.entryDone ?? entryLeft[r.number] ?? endT) - s
            }
            r.finalCorrect = r.finalEntries.count(where: { $0 == r.target })
            r.incorrectEntries = r.entries.count(where: { !$0.correct })
            r.rekeys = r.entries.count(where: \.rekey)
            r.deletions = r.entries.reduce(0) { $0 + $1.deletions }
            if let first = r.memorizeViews.first?.start, let last = r.entries.map(\.end).max() {
                r.memorizeToLastEntryKeyMs = last - first
            }
            var timedMs = 0, timed = 0
            for e in r.entries where !e.oneTap { timedMs += e.durationMs; timed += 1 }
            r.oneTapEntries = r.entries.count - timed
            if timed > 0 { r.meanEntrySeconds = Double(timedMs) / Double(timed) / 1000 }
            // Pooled by index: `flatMap(\.dynamics.hold)` copied every entry (six
            // reference-counted fields) to read one list.
            // Each pool's room made once (growing them by appends was 0.3 % of a build).
            var h: [Int] = [], dd: [Int] = [], ud: [Int] = [], uu: [Int] = []
            var nh = 0, ndd = 0, nud = 0, nuu = 0
            for j in r.entries.indices {
                nh += r.entries[j].dynamics.hold.count; ndd += r.entries[j].dynamics.downDown.count
                nud += r.entries[j].dynamics.upDown.count; nuu += r.entries[j].dynamics.upUp.count
            }
            h.reserveCapacity(nh); dd.reserveCapacity(ndd); ud.reserveCapacity(nud); uu.reserveCapacity(nuu)
            for j in r.entries.indices {
                h += r.entries[j].dynamics.hold; dd += r.entries[j].dynamics.downDown
                ud += r.entries[j].dynamics.upDown; uu += r.entries[j].dynamics.upUp
            }
            r.medianHold = median(h); r.medianDownDown = median(dd); r.medianUpDown = median(ud);
            r.medianUpUp = median(uu)
            allHold += h; allDD += dd; allUD += ud; allUU += uu
            if r.reached && r.entryStart == nil && complete {
                warn(nil, "string \(r.number): its Entry page was never shown although the session reached Thank You")
            }
            results[i] = r
        }
        let sessionStart = results.compactMap { $0.memorizeViews.first?.start }.min()
        var sessionEnd: Int? = nil
        if sessionStart != nil {
            if complete, let r = recall {
                sessionEnd = r.lastKey ?? r.end
            } else {
                sessionEnd = endT
            }
        }
        return ParticipantResult(participant: log.participant, source: log.source, device: log.device,
                                 complete: complete, lastEventMs: endT, strings: results, recall: recall,
                                 sessionStart: sessionStart, sessionEnd: sessionEnd,
                                 sessionTotalMs: zip2(sessionStart, sessionEnd).map { $1 - $0 },
                                 pageTurns: pageTurns, warnings: warnings,
                                 medianHold: median(allHold), medianDownDown: median(allDD),
                                 medianUpDown: median(allUD), medianUpUp: median(allUU))
    }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
