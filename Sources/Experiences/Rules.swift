#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Rules

/// The limits from the Prep requirements (seed 001), in one place.
public enum Rules {
    /// F16: 4–16 characters, spaces included (counted as Swift `Character`s, i.e. user-perceived characters).
    public static let titleLength = 4...16
    /// F17: up to 128 characters, may be empty.
    public static let descriptionMax = 128
    /// 2.1.5: at most 10 custom experiences per owner.
    public static let maxCustomPerOwner = 10
    /// REQ1: every trigger has a text label; kept short so it fits beside the icon.
    public static let labelLength = 1...40
    /// A note trigger's text (an imported info hot spot), shown in a dialog.
    public static let noteTextMax = 500
    /// Panorama titles are shown in the viewer header.
    public static let panoramaTitleLength = 1...60
    public static let yawRange = -180.0...180.0
    public static let pitchRange = -90.0...90.0
    /// Relative trigger size (F24 "resize"); 1 = the standard 44 px target, never smaller than half.
    public static let sizeRange = 0.5...3.0
    /// F16: the default title prefix, followed by the next free number.
    public static let defaultTitlePrefix = "experience "
    /// Widest equirectangular image that every WebGL device is known to accept as a texture.
    public static let safeTextureWidth = 4096
    /// REQ7: the whole app at most 40 MB; we hold each experience's files to it.
    public static let budgetBytes = 40 * 1_000_000
    /// Loudness: a clip whose RMS is this many dB above the median of the experience's other clips is flagged.
    public static let loudnessOutlierDB = 10.0

    public static let imageTypes: Set<String> = ["jpg", "jpeg", "png"]
    public static let soundTypes: Set<String> = ["wav", "mp3", "m4a", "aac", "ogg", "oga", "opus", "flac"]
    public static let videoTypes: Set<String> = ["mp4", "m4v", "webm"]

    /// Ids of panoramas and triggers: letters, digits, `-` and `_`, starting with a letter or digit.
    public static func isValidID(_ s: String) -> Bool {
        guard let f = s.unicodeScalars.first, s.unicodeScalars.count <= 64 else { return false }
        func alphanumeric(_ c: Unicode.Scalar) -> Bool {
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))
        }
        func ok(_ c: Unicode.Scalar) -> Bool { alphanumeric(c) || c == "-" || c == "_" }
        return alphanumeric(f) && s.unicodeScalars.allSatisfy(ok)
    }

    /// A media path must stay inside the experience's folder (relative, no `.` or `..`
    /// component) and be usable as a URL as it is: ASCII letters, digits, `-`, `_`, `.`, `/`.
    public static func isSafeRelativePath(_ s: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./")
        return !s.isEmpty && !s.hasPrefix("/") && s.allSatisfy { allowed.contains($0) }
            && !s.split(separator: "/",
                        omittingEmptySubsequences: false).contains { $0 == ".." || $0 == "." || $0.isEmpty }
    }
}

// MARK: - File types

/// Recognises media by their first bytes, so a renamed file is not taken for what it is not.
public enum MediaSniffer {
    public enum Family: String, Sendable { case jpeg, png, wav, mp3, mp4, ogg, flac, webm, aac }

    /// The family the bytes belong to, or `nil`.
    public static func family(of head: Data) -> Family? {
        let b = [UInt8](head.prefix(12))
        func at(_ i: Int, _ s: String) -> Bool {
            let u = Array(s.utf8)
            return b.count >= i + u.count && Array(b[i..<i + u.count]) == u
        }
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return .jpeg }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, "RIFF"), at(8, "WAVE") { return .wav }
        if at(4, "ftyp") { return .mp4 }
        if at(0, "OggS") { return .ogg }
        if at(0, "fLaC") { return .flac }
        if b.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .webm }
        if at(0, "ID3") { return .mp3 }
        if b.count >= 2, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 { return .aac }   // ADTS
        if b.count >= 2, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 { return .mp3 }   // MPEG audio frame sync
        return nil
    }

    /// The families a file extension may contain.
    public static func expected(forExtension ext: String) -> Set<Family> {
        switch ext.lowercased() {
        case "jpg", "jpeg": return [.jpeg]
        case "png": return [.png]
        case "wav": return [.wav]
        case "mp3": return [.mp3]
        case "m4a", "mp4", "m4v": return [.mp4]
        case "aac": return [.aac, .mp4]
        case "ogg", "oga", "opus": return [.ogg]
        case "flac": return [.flac]
        case "webm": return [.webm]
        default: return []
        }
    }
}
