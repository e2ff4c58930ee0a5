import Foundation
import Testing
@testable import RecallStudy
import TextBasics

/// The log reader's fast paths (docs/perf-study.md, "Round six, data path")
/// against plain twins kept here: the standard library's UTF-8 decoder, FileManager, a byte loop.
struct LogReadingFastPathTests {
    /// The plain twin of `UTF8Check.firstInvalid`: the standard library's own UTF-8
    /// decoder (RFC 3629: overlong forms, surrogates and code points above U+10FFFF are
    /// errors), scalar by scalar; the first error is at the start of the scalar it broke.
    static func firstInvalidByteWise(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        var bytes = UnsafeBufferPointer(rebasing: p[from..<to]).makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&bytes) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The eight-bytes-at-a-time ASCII skip against the byte-wise check: random mixes of
    /// ASCII runs (every length around 8 and 16), valid multi-byte characters, stray
    /// continuation bytes, cut sequences and invalid lead bytes, checked from every
    /// start and to every end of a slice.
    @Test func utf8CheckAsByteWise() {
        var g = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [Array("é".utf8), Array("日".utf8), Array("😀".utf8), [0x80], [0xC3], [0xE2, 0x82],
                                 [0xF0, 0x9F, 0x98], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80],
                                 [0xE0, 0x80, 0xAF], [0xF0, 0x8F, 0xBF, 0xBF], [0xEF, 0xBF, 0xBF]]
        for _ in 0..<3_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...6, using: &g) {
                bytes += (0..<Int.random(in: 0...19, using: &g)).map { _ in UInt8.random(in: 0x20...0x7E, using: &g) }
                if Bool.random(using: &g) { bytes += pieces.randomElement(using: &g)! }
            }
            bytes.withUnsafeBufferPointer { p in
                for from in 0...min(p.count, 3) {
                    for to in Set([p.count, max(from, p.count - 1), max(from, p.count - 9), from]) {
                        #expect(
                            UTF8Check.firstInvalid(p, from: from, to: to)
                                == Self.firstInvalidByteWise(p, from: from, to: to),
                            "\(bytes) \(from)..<\(to)")
                    }
                }
            }
        }
    }

    /// `NativeLog.readFile` against `FileManager.contents(atPath:)`: empty, one byte,
    /// sizes around the read chunk, a missing file and a folder.
    @Test func readFileAsFileManager() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for size in [0, 1, 2, 4095, 4096, 65_535, 65_536, 65_537, 300_001] {
            let url = dir.appendingPathComponent("f\(size)")
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url)
            #expect(NativeLog.readFile(url.path) == FileManager.default.contents(atPath: url.path).map { [UInt8]($0) })
        }
        #expect(NativeLog.readFile(dir.appendingPathComponent("missing").path) == nil)
        #expect(NativeLog.readFile(dir.path) == nil)
    }
}
