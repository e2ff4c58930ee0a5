import CGzip

/// Raw deflate (RFC 1951, no zlib or gzip wrapper) through the system zlib, as zip
/// entries hold it.
enum RawDeflate {
    /// zlib's `deflate` at level 6, window 15 bits (raw: `windowBits` −15), memLevel 8,
    /// the default strategy, all input in one `Z_FINISH` call.
    static func compress(_ input: UnsafeRawBufferPointer) throws -> [UInt8] {
        var stream = z_stream()
        let ok = deflateInit2_(&stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                               Int32(MemoryLayout<z_stream>.size))
        guard ok == Z_OK else { throw ZipError("zlib could not start") }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        let produced: Int = try out.withUnsafeMutableBufferPointer { dst in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            stream.next_out = dst.baseAddress
            stream.avail_out = uInt(dst.count)
            guard CGzip.deflate(&stream, Z_FINISH) == Z_STREAM_END else { throw ZipError("zlib could not compress") }
            return dst.count - Int(stream.avail_out)
        }
        out.removeLast(out.count - produced)
        return out
    }

    /// Inflates `input`, which must hold one whole deflate stream that makes exactly
    /// `size` bytes; never makes more than `size` (a lying header cannot blow it up).
    static func expand(_ input: UnsafeRawBufferPointer, size: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ZipError("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        // One spare byte: output beyond `size` shows the header lied.
        var out = [UInt8](repeating: 0, count: size + 1)
        let (status, made): (Int32, Int) = out.withUnsafeMutableBufferPointer { dst in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            stream.next_out = dst.baseAddress
            stream.avail_out = uInt(dst.count)
            let s = CGzip.inflate(&stream, Z_FINISH)
            return (s, dst.count - Int(stream.avail_out))
        }
        if made > size { throw ZipError("inflates to more than its stated size of \(size) bytes") }
        guard status == Z_STREAM_END else {
            throw ZipError(status == Z_BUF_ERROR ? "compressed data cut short" : "compressed data damaged")
        }
        guard made == size else { throw ZipError("inflates to \(made) bytes, not its stated \(size)") }
        out.removeLast()
        return out
    }

    /// The CRC-32 (ISO 3309, as zip and gzip use) of `bytes`.
    static func crc(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c: uLong = 0
        var rest = bytes
        // zlib's length is 32-bit: feed it in chunks.
        while !rest.isEmpty {
            let n = min(rest.count, 1 << 30)
            c = crc32(c, rest.bindMemory(to: Bytef.self).baseAddress, uInt(n))
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
        return UInt32(c)
    }
}
