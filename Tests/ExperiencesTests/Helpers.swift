import Foundation
@testable import Experiences

/// A temporary folder with helpers to write experience files and tiny media.
final class TempDir {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("exp-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func write(_ name: String, _ data: Data) -> URL {
        let u = url.appendingPathComponent(name)
        try! FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! data.write(to: u)
        return u
    }
    @discardableResult
    func write(_ name: String, _ text: String) -> URL { write(name, Data(text.utf8)) }
}

/// The smallest JPEG header the size reader needs: SOI, an APP0 segment, SOF0 with the size.
func jpegHeader(width: Int, height: Int) -> Data {
    var b: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]
    b += Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
    b += [
        0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
        0x03
    ]
    b += [0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
    b += [0xFF, 0xD9]
    return Data(b)
}

/// A mono 16-bit PCM WAV of a sine wave with the given peak amplitude (0…1).
func wavSine(amplitude: Double, frames: Int = 8000, rate: Int = 8000, bits: Int = 16, channels: Int = 1) -> Data {
    var samples: [UInt8] = []
    for i in 0..<frames {
        let v = amplitude * sin(2 * .pi * 100 * Double(i) / Double(rate))   // 100 Hz: whole periods in 8000 frames
        for _ in 0..<channels {
            switch bits {
            case 8: samples.append(UInt8(clamping: Int((v * 128).rounded()) + 128))
            case 24:
                let s = Int32((v * 8_388_607).rounded())
                samples += [
                    UInt8(truncatingIfNeeded: s), UInt8(truncatingIfNeeded: s >> 8), UInt8(truncatingIfNeeded: s >> 16)
                ]
            default:
                let s = Int16((v * 32767).rounded())
                samples += [UInt8(truncatingIfNeeded: s), UInt8(truncatingIfNeeded: s >> 8)]
            }
        }
    }
    func le32(_ v: Int) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
    }
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    let blockAlign = channels * bits / 8
    var b = Array("RIFF".utf8) + le32(36 + samples.count) + Array("WAVE".utf8)
    b +=
        Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(rate) + le32(rate * blockAlign)
        + le16(blockAlign) + le16(bits)
    b += Array("data".utf8) + le32(samples.count) + samples
    return Data(b)
}

/// An experience folder: `files` are written as given; images and clips named in the
/// JSON must be added by the caller.
func loadExperience(_ json: String, in dir: TempDir, name: String = "exp.json") -> (Experience?, [ExperienceIssue]) {
    let u = dir.write(name, json)
    return ExperienceLoader.load(url: u, display: name)
}

/// A valid three-panorama experience with media present.
func validDir() -> TempDir {
    let d = TempDir()
    for n in ["a.jpg", "b.jpg", "c.jpg"] { d.write(n, jpegHeader(width: 1024, height: 512)) }
    d.write("s.wav", wavSine(amplitude: 0.1))
    d.write("v.mp4", Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 0, 0]))
    return d
}

let validJSON = """
{
  "title": "At the dentist",
  "description": "Three rooms.",
  "panoramas": [
    {"id": "a", "title": "Door", "image": "a.jpg", "triggers": [
      {"kind": "sound", "yaw": 10, "pitch": 0, "label": "Bell", "media": "s.wav"},
      {"kind": "door", "yaw": 90, "pitch": 0, "label": "Go in", "target": "b"}
    ]},
    {"id": "b", "title": "Waiting", "image": "b.jpg", "triggers": [
      {"kind": "door", "yaw": 0, "pitch": 0, "label": "Chair", "target": "c"}
    ]},
    {"id": "c", "title": "Chair", "image": "c.jpg", "triggers": [
      {"kind": "video", "yaw": 0, "pitch": 10, "label": "Drill", "media": "v.mp4"},
      {"kind": "sound", "yaw": 40, "pitch": 0, "label": "Drill sound", "media": "s.wav"}
    ]}
  ]
}
"""

/// Replaces `old` by `new` in the valid experience (fails loudly if `old` is missing).
func variant(_ old: String, _ new: String) -> String {
    precondition(validJSON.contains(old), "variant: \(old) not found")
    return validJSON.replacingOccurrences(of: old, with: new)
}

/// The 1-based line of the first occurrence of `needle` in `text`.
func lineOf(_ needle: String, in text: String) -> Int {
    let r = text.range(of: needle)!
    return text[..<r.lowerBound].filter { $0 == "\n" }.count + 1
}

func errors(_ issues: [ExperienceIssue]) -> [ExperienceIssue] { issues.filter { $0.severity == .error } }
