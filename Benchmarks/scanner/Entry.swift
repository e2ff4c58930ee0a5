import Foundation
#if !OLD_READER
import JSONLines
#endif
// One file compiled into both readers' modules (callgrind.sh copies it into each), so
// both are measured with the very same loop; the old reader's module is built with
// OLD_READER defined, and has no `scanPlain`.

/// Scans every line of `bytes` into LineFields (with the plain reader, `scanPlain`, where
/// `plain` and the module has it); returns a checksum.
public func scanAll(_ bytes: [UInt8], plain: Bool) -> Int {
    var sum = 0
    bytes.withUnsafeBufferPointer { p in
        var start = 0
        while start < p.count {
            var e = start
            while e < p.count, p[e] != 0x0A { e += 1 }
            var s = JSONLineScanner(p, from: start, to: e)
            var f = LineFields()
            #if OLD_READER
            do { try s.scan(into: &f) } catch { sum += 1_000_000 }
            #else
            do throws(JSONScanProblem) {
                if plain { try s.scanPlain(into: &f) } else { try s.scan(into: &f) }
            } catch { sum += 1_000_000 }
            #endif
            sum &+= (f.t ?? 0) &+ (f.type.map { $0.isWord("key") ? 1 : 2 } ?? 0)
                &+ (f.key?.utf8.count ?? 0)
            start = e + 1
        }
    }
    return sum
}
