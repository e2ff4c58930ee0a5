#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import CVips
import TextBasics

// MARK: - Panoramas prepared at build time (libvips)

/// Resizes panoramas for the viewer and the home page's cards with libvips, so a large
/// photo (say 8000 × 4000) never reaches the browser at full size.
///
/// - viewer image: fits in ``viewerWidth`` × ``viewerWidth``/2 (the widest texture every
///   WebGL device accepts, `Rules.safeTextureWidth`), JPEG quality 85, metadata removed;
/// - card image: fits in ``thumbWidth`` × ``thumbWidth``/2, JPEG quality 80.
///
/// Images are only ever made smaller (an image inside the box is re-encoded at its size).
public enum PanoramaPrep {
    public static let viewerWidth = Rules.safeTextureWidth
    public static let thumbWidth = 512
    public static let viewerQuality: Int32 = 85
    public static let thumbQuality: Int32 = 80

    /// One prepared image: JPEG bytes and the size of the original.
    public struct Output: Sendable {
        public var jpeg: Data
        public var originalWidth: Int
        public var originalHeight: Int
    }

    /// A failure of libvips (an image it cannot decode), with its message.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// `data` (JPEG or PNG) fitted into `maxWidth` × `maxWidth/2`, as JPEG. libvips is
    /// loaded (dlopen) and started on the first call; without it this throws a message
    /// saying what to install.
    public static func fit(_ data: Data, maxWidth: Int, quality: Int32) throws(Failure) -> Output {
        guard dossier_vips_start() == 0 else { throw Failure(message: String(cString: dossier_vips_error())) }
        var w: Int32 = 0, h: Int32 = 0
        var out: UnsafeMutableRawPointer?
        var len = 0
        let rc = data.withUnsafeBytes { raw in
            dossier_vips_fit_jpeg(
                raw.baseAddress, raw.count, Int32(maxWidth), Int32(maxWidth / 2), quality, &w, &h, &out, &len)
        }
        guard rc == 0, let out else {
            let m = String(cString: dossier_vips_error()).trimmingWhitespaceAndNewlines()
            throw Failure(message: m.isEmpty ? "libvips could not read the image" : m)
        }
        defer { dossier_vips_free(out) }
        return Output(jpeg: Data(bytes: out, count: len), originalWidth: Int(w), originalHeight: Int(h))
    }

    /// The viewer's image of a panorama.
    public static func viewer(_ data: Data) throws(Failure) -> Output {
        try fit(data, maxWidth: viewerWidth, quality: viewerQuality)
    }
    /// The home page card's image of a panorama.
    public static func thumbnail(_ data: Data) throws(Failure) -> Output {
        try fit(data, maxWidth: thumbWidth, quality: thumbQuality)
    }
}
