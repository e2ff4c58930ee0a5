import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// SHA-256 helpers for the output manifest and the incremental cache.
public enum Hashing {
    public static func sha256(_ data: Data) -> String { hex(SHA256.hash(data: data)) }
    public static func sha256(_ bytes: UnsafeRawBufferPointer) -> String { hex(SHA256.hash(data: bytes)) }

    public static func sha256(file: URL) throws -> String {
        let h = PlainFile(forReadingAtPath: file.path)
        guard let h else { throw DossierError(file: file, "cannot read file") }
        defer { try? h.close() }
        var hasher = SHA256()
        while true {
            let chunk = h.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    /// A SHA-256 digest in lower-case hex, written from its bytes into the String's storage
    /// (the generic form below iterates a digest through an array it makes, and makes an
    /// array of the digits: 3,400 instructions a digest, two digests a content page).
    static func hex(_ digest: SHA256Digest) -> String {
        digest.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
                let digits: StaticString = "0123456789abcdef"
                let d = digits.utf8Start
                for (k, b) in bytes.enumerated() {
                    out[2 * k] = d[Int(b >> 4)]
                    out[2 * k + 1] = d[Int(b & 15)]
                }
                return 2 * bytes.count
            }
        }
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// An incremental hash over labelled parts (used for cache keys).
    public struct Key {
        var hasher = SHA256()
        public init() {}
        public mutating func add(_ s: String) {
            var n = UInt64(s.utf8.count).littleEndian
            withUnsafeBytes(of: &n) { hasher.update(bufferPointer: $0) }
            // The String's own bytes (a `Data` copy of them cast its way through the
            // runtime's protocol checks: 2,900 instructions a call, three calls a page).
            var s = s
            s.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        public mutating func add(_ d: Data) {
            var n = UInt64(d.count).littleEndian
            withUnsafeBytes(of: &n) { hasher.update(bufferPointer: $0) }
            hasher.update(data: d)
        }
        public func finalize() -> String { Hashing.hex(hasher.finalize()) }
    }
}
