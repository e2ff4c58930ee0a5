import Foundation
/// Scans every line of `bytes` into LineFields; returns a checksum.
public func oldScanAll(_ bytes: [UInt8]) -> Int {
    var sum = 0
    bytes.withUnsafeBufferPointer { p in
        var start = 0
        while start < p.count {
            var e = start
            while e < p.count, p[e] != 0x0A { e += 1 }
            var s = JSONLineScanner(p, from: start, to: e)
            var f = LineFields()
            do { try s.scan(into: &f) } catch { sum += 1_000_000 }
            sum &+= (f.t ?? 0) &+ (f.type.map { $0.isWord("key") ? 1 : 2 } ?? 0) &+ (f.key?.utf8.count ?? 0)
            start = e + 1
        }
    }
    return sum
}
