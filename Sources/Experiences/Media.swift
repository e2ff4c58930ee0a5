#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Image headers

/// Image size read from the file header, without decoding pixels.
public enum ImageInfo {
    /// Width and height of a PNG (IHDR) or baseline/progressive JPEG (first SOFn marker).
    public static func dimensions(_ data: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](data)
        if b.count >= 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            Array(b[12..<16]) == Array("IHDR".utf8)
        {
            let w = Int(b[16]) << 24 | Int(b[17]) << 16 | Int(b[18]) << 8 | Int(b[19])
            let h = Int(b[20]) << 24 | Int(b[21]) << 16 | Int(b[22]) << 8 | Int(b[23])
            return (w, h)
        }
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 3 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }               // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
            // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard i + 8 < b.count else { return nil }
                let h = Int(b[i + 5]) << 8 | Int(b[i + 6])
                let w = Int(b[i + 7]) << 8 | Int(b[i + 8])
                return (w, h)
            }
            if marker == 0xDA { return nil }                     // start of scan before any SOF
            i += 2 + len
        }
        return nil
    }
}

// MARK: - WAV loudness

/// Level of a PCM WAV clip, relative to digital full scale.
public struct WAVLevel: Sendable, Equatable, Codable {
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    /// Samples per channel.
    public var frames: Int
    public var seconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
    /// 20·log10(RMS) over every sample of every channel, full scale = 1.0; `nil` for silence.
    public var rmsDBFS: Double?
    /// 20·log10(max |sample|); `nil` for silence.
    public var peakDBFS: Double?
}

public struct WAVError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

public enum WAVAnalyzer {
    /// Decodes a RIFF/WAVE file with integer PCM (8, 16, 24, 32 bit; format 1 or
    /// WAVE_FORMAT_EXTENSIBLE with the PCM sub-format) or 32/64-bit IEEE float (format 3).
    public static func analyze(_ data: Data) throws(WAVError) -> WAVLevel {
        let b = [UInt8](data)
        func u32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        guard b.count >= 12, Array(b[0..<4]) == Array("RIFF".utf8), Array(b[8..<12]) == Array("WAVE".utf8) else {
            throw WAVError(message: "not a RIFF/WAVE file")
        }
        var i = 12
        var format = -1, channels = 0, rate = 0, bits = 0
        var dataRange: Range<Int>?
        while i + 8 <= b.count {
            let id = String(decoding: b[i..<i + 4], as: UTF8.self)
            let size = u32(i + 4)
            let body = i + 8
            if id == "fmt " {
                guard size >= 16, body + 16 <= b.count else { throw WAVError(message: "fmt chunk too short") }
                format = u16(body); channels = u16(body + 2); rate = u32(body + 4); bits = u16(body + 14)
                // WAVE_FORMAT_EXTENSIBLE: the sub-format GUID's first two bytes
                if format == 0xFFFE, size >= 40, body + 26 <= b.count { format = u16(body + 24) }
            } else if id == "data" {
                dataRange = body..<min(b.count, body + size)   // tolerate a truncated last chunk
            }
            i = body + size + (size & 1)
        }
        guard format >= 0 else { throw WAVError(message: "no fmt chunk") }
        guard let range = dataRange else { throw WAVError(message: "no data chunk") }
        guard channels > 0, rate > 0 else { throw WAVError(message: "invalid channel count or sample rate") }
        let isFloat: Bool
        switch (format, bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32): isFloat = false
        case (3, 32), (3, 64): isFloat = true
        default:
            throw WAVError(
                message:
                    "unsupported WAV encoding (format \(format), \(bits) bit); only PCM and IEEE float can be measured")
        }
        let bytesPer = bits / 8
        let count = range.count / bytesPer
        var sumSq = 0.0, peak = 0.0
        var p = range.lowerBound
        for _ in 0..<count {
            let v: Double
            switch (isFloat, bits) {
            case (false, 8): v = (Double(b[p]) - 128) / 128
            case (false, 16): v = Double(Int16(bitPattern: UInt16(b[p]) | UInt16(b[p + 1]) << 8)) / 32768
            case (false, 24):
                let raw = Int32(b[p]) | Int32(b[p + 1]) << 8 | Int32(b[p + 2]) << 16
                v = Double((raw << 8) >> 8) / 8_388_608
            case (false, _): v = Double(Int32(bitPattern: UInt32(u32(p)))) / 2_147_483_648
            case (true, 32): v = Double(Float(bitPattern: UInt32(u32(p))))
            default:
                var bitsv: UInt64 = 0
                for k in 0..<8 { bitsv |= UInt64(b[p + k]) << (8 * UInt64(k)) }
                v = Double(bitPattern: bitsv)
            }
            sumSq += v * v
            peak = max(peak, abs(v))
            p += bytesPer
        }
        let rms = count > 0 ? (sumSq / Double(count)).squareRoot() : 0
        return WAVLevel(sampleRate: rate, channels: channels, bitsPerSample: bits, frames: count / channels,
                        rmsDBFS: rms > 0 ? 20 * log10(rms) : nil, peakDBFS: peak > 0 ? 20 * log10(peak) : nil)
    }
}

// MARK: - The media report of one experience

/// Sizes, image dimensions and clip levels of an experience's files.
public struct MediaReport: Sendable, Equatable, Codable {
    public struct Item: Sendable, Equatable, Codable {
        public var path: String
        /// image, sound or video
        public var role: String
        public var bytes: Int
        public var width: Int?
        public var height: Int?
        public var level: WAVLevel?
        /// Why the level could not be measured (e.g. an MP3), if so.
        public var levelNote: String?
        /// This clip is much louder than the experience's others.
        public var loudOutlier: Bool
    }

    public var items: [Item]
    /// Bytes of the experience file and every media file it uses.
    public var totalBytes: Int
    public var budgetBytes: Int
    public var overBudget: Bool { totalBytes > budgetBytes }
    public var warnings: [ExperienceIssue]

    /// Measures every media file of `e`, looked up under `root`. Missing files are skipped
    /// (the loader reports them). `fileBytes` is the size of the experience file itself.
    public init(_ e: Experience, root: URL, fileBytes: Int = 0, budget: Int = Rules.budgetBytes) {
        var items: [Item] = []
        var warnings: [ExperienceIssue] = []
        var roles: [String: (String, Int)] = [:]
        for p in e.panoramas { if roles[p.image] == nil { roles[p.image] = ("image", p.line) } }
        for p in e.panoramas {
            for t in p.triggers { if let m = t.media, roles[m] == nil { roles[m] = (t.kind.rawValue, t.line) } }
        }
        for path in e.mediaPaths {
            let (role, line) = roles[path] ?? ("image", 1)
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else {
                continue
            }
            var item = Item(path: path, role: role, bytes: data.count, loudOutlier: false)
            if role == "image", let d = ImageInfo.dimensions(data) {
                item.width = d.width; item.height = d.height
                if d.width > Rules.safeTextureWidth {
                    warnings.append(
                        .warning(
                            e.file, line,
                            "image \"\(path)\" is \(d.width) px wide; above \(Rules.safeTextureWidth) px some devices "
                                + "cannot show it (dossier build gives the viewer a copy fitted to "
                                + "\(Rules.safeTextureWidth) px)"
                        ))
                }
                if d.width != 2 * d.height {
                    warnings.append(
                        .warning(
                            e.file, line,
                            "image \"\(path)\" is \(d.width)×\(d.height); an equirectangular panorama is twice as wide "
                                + "as high"
                        ))
                }
            }
            if role == "sound" || role == "video" {
                if MediaSniffer.family(of: data.prefix(16)) == .wav {
                    do { item.level = try WAVAnalyzer.analyze(data) } catch { item.levelNote = error.message }
                } else {
                    item.levelNote =
                        role == "video" ? "video sound is not measured" : "only WAV (PCM) sound is measured"
                }
            }
            items.append(item)
        }
        // Loudness outliers: RMS more than `loudnessOutlierDB` above the median of the other measured clips.
        let measured = items.indices.filter { items[$0].level?.rmsDBFS != nil }
        if measured.count >= 2 {
            for i in measured {
                let others = measured.filter { $0 != i }.map { items[$0].level!.rmsDBFS! }.sorted()
                let median =
                    others.count % 2 == 1
                    ? others[others.count / 2] : (others[others.count / 2 - 1] + others[others.count / 2]) / 2
                let rms = items[i].level!.rmsDBFS!
                if rms - median > Rules.loudnessOutlierDB {
                    items[i].loudOutlier = true
                    warnings.append(.warning(e.file, roles[items[i].path]?.1,
                        "sound \"\(items[i].path)\" is \(cFormat("%.1f", rms - median)) dB louder "
                            + "(RMS \(cFormat("%.1f", rms)) dBFS) than the median of the other clips "
                            + "(\(cFormat("%.1f", median)) dBFS)"))
                }
            }
        }
        self.items = items
        totalBytes = fileBytes + items.reduce(0) { $0 + $1.bytes }
        budgetBytes = budget
        if totalBytes > budgetBytes {
            warnings.append(
                .warning(
                    e.file, nil,
                    "the experience uses \(totalBytes) bytes, over the budget of \(budgetBytes) bytes (40 MB)"))
        }
        self.warnings = warnings
    }
}
