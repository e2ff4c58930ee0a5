#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Writes a zip file entry by entry, always to the same bytes for the same entries
/// (docs/archive.md, "The zip's bytes"): no timestamps but one given date, no
/// permissions but 0644 files, deflate by zlib at level 6 unless storing is smaller,
/// ZIP64 fields only where a size, offset or count needs them.
public final class ZipWriter {
    private struct Written {
        var name: [UInt8]
        var method: UInt16
        var crc: UInt32
        var compressed, size, offset: UInt64
    }

    private var fd: Int32
    private let date: UInt16
    private var offset: UInt64 = 0
    private var written: [Written] = []
    private var names = Set<[UInt8]>()
    /// Writes ZIP64 fields for every entry and the end records whatever the sizes (so a
    /// reader's ZIP64 path can be tested with small files).
    public var zip64Always = false

    /// Creates (or truncates) `path`; every entry is dated `day` (`yyyy-mm-dd`, 00:00).
    public init(path: String, day: String) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ZipError("cannot create \(path) (\(String(cString: strerror(errno))))") }
        date = dosDate(day)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Adds a file named `name` (a relative path with `/` between folders).
    public func add(name: String, contents: [UInt8]) throws {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 0xFFFF, !nameBytes.isEmpty, names.insert(nameBytes).inserted else {
            throw ZipError("entry '\(name)': empty, too long or given twice")
        }
        guard contents.count < Int(UInt32.max) else {
            throw ZipError("entry '\(name)': files of 4 GiB or more are not zipped")
        }
        let (crc, packed) = try contents.withUnsafeBytes { raw in (RawDeflate.crc(raw), try RawDeflate.compress(raw)) }
        let deflate = packed.count < contents.count
        let data = deflate ? packed : contents
        let entry = Written(
            name: nameBytes, method: deflate ? 8 : 0, crc: crc, compressed: UInt64(data.count),
            size: UInt64(contents.count), offset: offset)
        let big = zip64Always || entry.size >= UInt64(ZipMark.inExtra32)
            || entry.compressed >= UInt64(ZipMark.inExtra32)
        var h = LittleEndianOut()
        h.u32(ZipMark.local)
        h.u16(big ? 45 : 20)
        h.u16(ZipMark.utf8Names)
        h.u16(entry.method)
        h.u16(0)  // time 00:00:00
        h.u16(date)
        h.u32(crc)
        h.u32(big ? ZipMark.inExtra32 : UInt32(entry.compressed))
        h.u32(big ? ZipMark.inExtra32 : UInt32(entry.size))
        h.u16(UInt16(nameBytes.count))
        h.u16(big ? 20 : 0)
        h.append(nameBytes)
        if big {
            h.u16(ZipMark.zip64ExtraID)
            h.u16(16)
            h.u64(entry.size)
            h.u64(entry.compressed)
        }
        try emit(h.bytes)
        try emit(data)
        written.append(entry)
    }

    /// Writes the central directory and the end records, and closes the file.
    public func finish() throws {
        let start = offset
        for e in written {
            let big = zip64Always || e.size >= UInt64(ZipMark.inExtra32) || e.compressed >= UInt64(ZipMark.inExtra32)
            let farOffset = zip64Always || e.offset >= UInt64(ZipMark.inExtra32)
            var h = LittleEndianOut()
            h.u32(ZipMark.central)
            h.u16(big || farOffset ? 0x032D : 0x0314)  // made by: Unix, spec 4.5 or 2.0
            h.u16(big || farOffset ? 45 : 20)
            h.u16(ZipMark.utf8Names)
            h.u16(e.method)
            h.u16(0)
            h.u16(date)
            h.u32(e.crc)
            h.u32(big ? ZipMark.inExtra32 : UInt32(e.compressed))
            h.u32(big ? ZipMark.inExtra32 : UInt32(e.size))
            h.u16(UInt16(e.name.count))
            let extra = (big ? 16 : 0) + (farOffset ? 8 : 0)
            h.u16(extra > 0 ? UInt16(4 + extra) : 0)
            h.u16(0)  // comment
            h.u16(0)  // disk
            h.u16(0)  // internal attributes
            h.u32(0o100644 << 16)  // external: a regular file, rw-r--r--
            h.u32(farOffset ? ZipMark.inExtra32 : UInt32(e.offset))
            h.append(e.name)
            if extra > 0 {
                h.u16(ZipMark.zip64ExtraID)
                h.u16(UInt16(extra))
                if big {
                    h.u64(e.size)
                    h.u64(e.compressed)
                }
                if farOffset { h.u64(e.offset) }
            }
            try emit(h.bytes)
        }
        let size = offset - start
        let count = UInt64(written.count)
        let big = zip64Always || count >= UInt64(ZipMark.inExtra16) || size >= UInt64(ZipMark.inExtra32)
            || start >= UInt64(ZipMark.inExtra32)
        var end = LittleEndianOut()
        if big {
            let at = offset
            end.u32(ZipMark.end64)
            end.u64(44)
            end.u16(0x032D)
            end.u16(45)
            end.u32(0)
            end.u32(0)
            end.u64(count)
            end.u64(count)
            end.u64(size)
            end.u64(start)
            end.u32(ZipMark.locator64)
            end.u32(0)
            end.u64(at)
            end.u32(1)
        }
        end.u32(ZipMark.end)
        end.u16(0)
        end.u16(0)
        end.u16(big ? ZipMark.inExtra16 : UInt16(count))
        end.u16(big ? ZipMark.inExtra16 : UInt16(count))
        end.u32(big ? ZipMark.inExtra32 : UInt32(size))
        end.u32(big ? ZipMark.inExtra32 : UInt32(start))
        end.u16(0)
        try emit(end.bytes)
        guard fsync(fd) == 0 || errno == EINVAL else { throw ZipError("cannot flush the zip to disk") }
        close(fd)
        fd = -1
    }

    private func emit(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw ZipError("cannot write the zip (\(String(cString: strerror(errno))))")
            }
        }
        offset += UInt64(bytes.count)
    }
}
