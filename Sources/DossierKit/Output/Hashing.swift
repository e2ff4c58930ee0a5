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
            hasher.update(data: Data(s.utf8))
        }
        public mutating func add(_ d: Data) {
            var n = UInt64(d.count).littleEndian
            withUnsafeBytes(of: &n) { hasher.update(bufferPointer: $0) }
            hasher.update(data: d)
        }
        public func finalize() -> String { Hashing.hex(hasher.finalize()) }
    }
}
