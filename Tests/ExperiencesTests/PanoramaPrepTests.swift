import Foundation
import Testing
@testable import Experiences

/// A real 8000 × 4000 JPEG made by ImageMagick (skips when `convert` is missing).
func largeJPEG(width: Int, height: Int) throws -> Data? {
    let dir = TempDir()
    let out = dir.url.appendingPathComponent("big.jpg")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["convert", "-size", "\(width)x\(height)", "gradient:#2f5d7c-#f7f5f0", "-quality", "80", out.path]
    do { try p.run() } catch { return nil }
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    return try Data(contentsOf: out)
}

/// Width and height from a JPEG's SOF marker (independent of libvips).
func jpegSize(_ d: Data) -> (Int, Int)? {
    let b = [UInt8](d)
    var i = 2
    while i + 9 < b.count {
        guard b[i] == 0xFF else { return nil }
        let m = b[i + 1], len = Int(b[i + 2]) << 8 | Int(b[i + 3])
        if (0xC0...0xC3).contains(m) { return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6])) }
        i += 2 + len
    }
    return nil
}

@Test func largePanoramaIsFittedTo4096ForTheViewerAnd512ForCards() throws {
    guard let big = try largeJPEG(width: 8000, height: 4000) else { return }
    let v = try PanoramaPrep.viewer(big)
    #expect(v.originalWidth == 8000 && v.originalHeight == 4000)
    #expect(jpegSize(v.jpeg).map { $0 == (4096, 2048) } == true)
    let t = try PanoramaPrep.thumbnail(big)
    #expect(jpegSize(t.jpeg).map { $0 == (512, 256) } == true)
    #expect(t.jpeg.count < 60_000)
}

@Test func smallPanoramaIsNeverEnlarged() throws {
    guard let small = try largeJPEG(width: 1024, height: 512) else { return }
    #expect(jpegSize(try PanoramaPrep.viewer(small).jpeg).map { $0 == (1024, 512) } == true)
}

@Test func undecodableImageIsAFailureWithAMessage() {
    do {
        _ = try PanoramaPrep.viewer(jpegHeader(width: 10, height: 5) + Data(repeating: 0, count: 3));
        Issue.record("expected a failure")
    }
    catch { #expect(!error.message.isEmpty) }
}
