import CGzip
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// gzip (RFC 1952) inflation through the system zlib, with an output limit so a
/// hostile file cannot expand without bound.
enum Gzip {
    /// Inflates one gzip member. Throws on damaged data or output over `limit` bytes.
    static func inflate(_ input: Data, limit: Int = 1 << 30) throws -> Data {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer (CRC-32 and length) are required
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw VaultError(.io, "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var out = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var status: Int32 = Z_OK
        try input.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: src.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(src.count)
            repeat {
                try chunk.withUnsafeMutableBufferPointer { buf in
                    stream.next_out = buf.baseAddress
                    stream.avail_out = uInt(buf.count)
                    status = CGzip.inflate(&stream, Z_NO_FLUSH)
                    guard status == Z_OK || status == Z_STREAM_END else {
                        throw VaultError(.corrupt, "the compressed payload is damaged (zlib \(status))")
                    }
                    out.append(buf.baseAddress!, count: buf.count - Int(stream.avail_out))
                }
                guard out.count <= limit else {
                    throw VaultError(.invalidInput, "the payload inflates to more than \(limit >> 20) MiB")
                }
                if status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0 {
                    throw VaultError(.truncated, "the compressed payload is truncated")
                }
            } while status != Z_STREAM_END
        }
        return out
    }
}
