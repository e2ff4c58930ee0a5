import Testing
@testable import Render
import SplitMix64
import TextBasics

// `CSVWriter.RecordBytes.appendDigits` writes a number's digits with one check for room
// (docs/perf-study.md, "Issue #45, the study build: cuts by measured share"); its twin
// `appendDigitsOneByOne` checks each digit. Both write into records of every size
// around the 21 bytes the fast path needs, and against the field-by-field writer.

/// What a record of `capacity` bytes holds after `prefix` bytes and the number, and
/// whether it fits.
private func digits(_ i: Int, prefix: Int, capacity: Int, oneByOne: Bool) -> (bytes: [UInt8], fits: Bool) {
    var w = CSVWriter()
    var fits = false
    _ = w.record(capacity: capacity) { r in
        for _ in 0..<prefix { r.appendToField(0x41) }
        if oneByOne { r.appendDigitsOneByOne(i) } else { r.appendDigits(i) }
        fits = r.fits
        return true
    }
    return (Array(w.text.utf8), fits)
}

@Test func recordDigitsAsTheirOneByOneTwin() {
    var g = SplitMix64(seed: 45)
    var values: [Int] = [0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, Int.max - 1, Int.min + 1]
    for p in 0..<19 {
        let ten = Int(pow10(p))
        values += [ten - 1, ten, ten + 1, -ten + 1, -ten, -ten - 1]
    }
    for _ in 0..<20_000 {
        switch Int.random(in: 0..<3, using: &g) {
        case 0: values.append(Int.random(in: 0...2_000_000, using: &g))
        case 1: values.append(Int.random(in: -1_000...1_000, using: &g))
        default: values.append(Int(bitPattern: UInt(g.next())))
        }
    }
    for (n, i) in values.enumerated() {
        // Every value with room to spare; the listed ones also in records that end
        // just before, at and after the 21 bytes the fast path asks for.
        let prefixes = n < 200 ? Array(0...24) : [Int.random(in: 0...40, using: &g)]
        for prefix in prefixes {
            let capacity = n < 200 ? 21 : prefix + 64
            let fast = digits(i, prefix: prefix, capacity: capacity, oneByOne: false)
            let plain = digits(i, prefix: prefix, capacity: capacity, oneByOne: true)
            #expect(fast.bytes == plain.bytes && fast.fits == plain.fits, "\(i) after \(prefix) bytes")
            if plain.fits {
                #expect(fast.bytes == Array(repeating: 0x41, count: prefix) + Array(String(i).utf8))
            }
        }
    }
}

private func pow10(_ p: Int) -> UInt64 { (0..<p).reduce(1) { r, _ in r * 10 } }

/// `ByteWriting.copySmall` (word loads and stores up to 16 bytes) against
/// `update(from:count:)`, its plain twin: every length 0–40 from every offset 0–7 of the
/// source into every offset 0–7 of the target, the bytes around the copy left alone.
@Test func recordCopyAsUpdateFrom() {
    var g = SplitMix64(seed: 16)
    let source = (0..<64).map { _ in UInt8.random(in: 0...255, using: &g) }
    for n in 0...40 {
        for from in 0..<8 {
            for to in 0..<8 {
                var fast = [UInt8](repeating: 0xAA, count: 64), plain = fast
                source.withUnsafeBufferPointer { s in
                    fast.withUnsafeMutableBufferPointer { f in
                        ByteWriting.copySmall(s.baseAddress! + from, to: f.baseAddress! + to, count: n)
                    }
                    plain.withUnsafeMutableBufferPointer { p in
                        (p.baseAddress! + to).update(from: s.baseAddress! + from, count: n)
                    }
                }
                #expect(fast == plain, "\(n) bytes from \(from) to \(to)")
            }
        }
    }
}
