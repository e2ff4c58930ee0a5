import Foundation
import Testing
@testable import Experiences

@Test func jpegAndPngDimensionsComeFromTheHeader() {
    #expect(ImageInfo.dimensions(jpegHeader(width: 1024, height: 512))! == (1024, 512))
    #expect(ImageInfo.dimensions(jpegHeader(width: 8192, height: 300))! == (8192, 300))
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    png += [0, 0, 0x10, 0x00, 0, 0, 0x08, 0x00, 8, 2, 0, 0, 0]
    #expect(ImageInfo.dimensions(Data(png))! == (4096, 2048))
    #expect(ImageInfo.dimensions(Data("not an image".utf8)) == nil)
}

// A sine of peak amplitude A has RMS A/√2: 20·log10(A/√2) dBFS, and peak 20·log10(A).
@Test(arguments: [16, 24, 8])
func wavLevelsOfASineMatchTheory(bits: Int) throws {
    let a = 0.5
    let level = try WAVAnalyzer.analyze(wavSine(amplitude: a, bits: bits, channels: 2))
    #expect(level.channels == 2)
    #expect(level.bitsPerSample == bits)
    #expect(level.frames == 8000)
    #expect(abs(level.seconds - 1) < 1e-9)
    let tolerance = bits == 8 ? 0.1 : 0.01
    #expect(abs(level.rmsDBFS! - 20 * log10(a / 2.0.squareRoot())) < tolerance)
    #expect(abs(level.peakDBFS! - 20 * log10(a)) < tolerance)
}

@Test func silentWavHasNoLevel() throws {
    let level = try WAVAnalyzer.analyze(wavSine(amplitude: 0))
    #expect(level.rmsDBFS == nil)
    #expect(level.peakDBFS == nil)
}

@Test func nonPCMOrBrokenWavIsReported() {
    var d = [UInt8](wavSine(amplitude: 0.1))
    d[20] = 2   // ADPCM format tag
    #expect(throws: WAVError.self) { try WAVAnalyzer.analyze(Data(d)) }
    #expect(throws: WAVError.self) { try WAVAnalyzer.analyze(Data("RIFF....WAVE".utf8)) }
}

@Test func mediaReportFlagsLoudOutlierWideImageAndBudget() {
    let d = TempDir()
    d.write("a.jpg", jpegHeader(width: 8192, height: 4096))
    d.write("b.jpg", jpegHeader(width: 1000, height: 400))
    d.write("q1.wav", wavSine(amplitude: 0.02))
    d.write("q2.wav", wavSine(amplitude: 0.025))
    d.write("loud.wav", wavSine(amplitude: 0.9))   // ≈ 31 dB above the others
    d.write("v.mp4", Data([0, 0, 0, 0x18] + Array("ftypisom".utf8)))
    func s(_ m: String) -> Trigger { Trigger(id: m, kind: .sound, yaw: 0, pitch: 0, label: m, media: m, line: 7) }
    let e = Experience(file: "m.json", slug: "m", title: "Media", panoramas: [
        Panorama(id: "a", title: "A", image: "a.jpg", triggers: [s("q1.wav"), s("q2.wav"), s("loud.wav")], line: 3),
        Panorama(id: "b", title: "B", image: "b.jpg",
                 triggers: [Trigger(id: "v", kind: .video, yaw: 0, pitch: 0, label: "v", media: "v.mp4")], line: 5),
    ])
    let r = MediaReport(e, root: d.url, fileBytes: 100)
    #expect(r.items.map(\.path) == ["a.jpg", "b.jpg", "q1.wav", "q2.wav", "loud.wav", "v.mp4"])
    #expect(r.items.filter(\.loudOutlier).map(\.path) == ["loud.wav"])
    #expect(r.items.first { $0.path == "v.mp4" }?.levelNote == "video sound is not measured")
    let msgs = r.warnings.map(\.message)
    #expect(msgs.contains { $0.contains("a.jpg\" is 8192 px wide") })
    #expect(msgs.contains { $0.contains("b.jpg\" is 1000×400") })
    #expect(msgs.contains { $0.contains("loud.wav") && $0.contains("louder") })
    #expect(!r.overBudget)
    let total = r.totalBytes
    #expect(total == 100 + r.items.reduce(0) { $0 + $1.bytes })
    let tight = MediaReport(e, root: d.url, fileBytes: 100, budget: total - 1)
    #expect(tight.overBudget)
    #expect(tight.warnings.contains { $0.message.contains("over the budget") })
}

@Test func similarClipsAreNotOutliers() {
    let d = TempDir()
    d.write("p.jpg", jpegHeader(width: 1024, height: 512))
    d.write("a.wav", wavSine(amplitude: 0.1))
    d.write("b.wav", wavSine(amplitude: 0.2))   // 6 dB louder: within 10 dB
    let e = Experience(file: "m.json", slug: "m", title: "Media", panoramas: [
        Panorama(id: "p", title: "P", image: "p.jpg", triggers: [
            Trigger(id: "a", kind: .sound, yaw: 0, pitch: 0, label: "a", media: "a.wav"),
            Trigger(id: "b", kind: .sound, yaw: 0, pitch: 0, label: "b", media: "b.wav")]),
    ])
    let r = MediaReport(e, root: d.url)
    #expect(r.items.allSatisfy { !$0.loudOutlier })
    #expect(r.warnings.isEmpty)
}

@Test func snifferRecognisesMediaFamilies() {
    #expect(MediaSniffer.family(of: jpegHeader(width: 1, height: 1)) == .jpeg)
    #expect(MediaSniffer.family(of: wavSine(amplitude: 0.1, frames: 10)) == .wav)
    #expect(MediaSniffer.family(of: Data([0x1A, 0x45, 0xDF, 0xA3, 1])) == .webm)
    #expect(MediaSniffer.family(of: Data("OggS\0".utf8)) == .ogg)
    #expect(MediaSniffer.family(of: Data("ID3\u{4}".utf8)) == .mp3)
    #expect(MediaSniffer.family(of: Data("hello".utf8)) == nil)
}
