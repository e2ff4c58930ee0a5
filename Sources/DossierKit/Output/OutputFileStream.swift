import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One output file written in pieces into the staging folder and hashed as it goes
/// (``OutputTree/openStream(_:owner:)``). Writes are buffered (128 KiB) so thousands of
/// small appends cost few system calls. (The study summary has 18 streams open at once:
/// buffers of 1 MiB were 18 MB of a clean build's peak memory.)
public final class OutputFileStream {
    public let path: String
    let full: String
    private let fd: Int32
    private var hasher = SHA256()
    private var buffer: [UInt8] = []
    private var size: Int64 = 0
    private var closed = false
    private static let flushAt = 1 << 17

    init(path: String, full: String) throws {
        self.path = path
        self.full = full
        fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystemErrors.failed(full, "cannot write") }
        buffer.reserveCapacity(Self.flushAt + 4096)
    }

    deinit { if !closed { Glibc.close(fd) } }

    /// Appends bytes.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        hasher.update(bufferPointer: bytes)
        size += Int64(bytes.count)
        // The buffer never grows past its capacity: flushed before it would.
        if buffer.count + bytes.count > Self.flushAt { try flush() }
        if bytes.count >= Self.flushAt {
            try writeAll(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    public func append(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try append($0) } }
    public func append(_ data: Data) throws { try data.withUnsafeBytes { try append($0) } }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws { try Self.writeAll(fd, bytes, path: full) }

    /// Writes all of `bytes` to `fd` (retrying short writes and EINTR).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var off = 0
        while off < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw FileSystemErrors.failed(path, "cannot write") }
            if n == 0 { throw DossierError(file: path, "cannot write: nothing written") }
            off += n
        }
    }

    /// Flushes, closes and returns the file's manifest entry.
    func close() throws -> ManifestFile {
        try flush()
        closed = true
        guard Glibc.close(fd) == 0 else { throw FileSystemErrors.failed(full, "cannot write") }
        return ManifestFile(path: path, digest: HexDigest(hasher), size: size)
    }
}
