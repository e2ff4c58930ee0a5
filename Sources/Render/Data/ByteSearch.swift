import CMarkArena

/// A search for a byte string in UTF-8 bytes (glibc's `memmem`), for passes over whole
/// rendered pages: the standard library's generic `firstRange(of:)` walks them element by
/// element (20 ms on a 600 KB page), Foundation's `range(of:)` compares characters.
public enum ByteSearch {
    /// The first offset ≥ `from` (negative counts as 0) where `needle` occurs in `haystack`.
    public static func find(_ needle: String, in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let start = max(0, from)
        guard start < haystack.count, let base = haystack.baseAddress else { return nil }
        var needle = needle
        return needle.withUTF8 { n in
            guard let p = dossier_memmem(base + start, haystack.count - start, n.baseAddress, n.count) else {
                return nil
            }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(p))
        }
    }

    /// The offset of the first byte at 0x80 or above in `bytes` at `from` (≥ 0) or after,
    /// or `bytes.count`: 32 bytes tested at a step (`dossier_next_non_ascii`;
    /// `ByteSearchTests` holds it to its plain twin).
    public static func nextNonASCII(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        guard from < bytes.count, let base = bytes.baseAddress else { return bytes.count }
        return dossier_next_non_ascii(base, bytes.count, from)
    }

    /// The offset of the first `=` at `from + 1` or later in `page` whose byte before is
    /// `f` or `c` (where ` href=` and ` src=` end), 16 bytes tested at once
    /// (`dossier_find_link_equals`; `ByteSearchTests` holds it to its plain twin).
    public static func nextLinkEquals(in page: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard from < page.count, let base = page.baseAddress,
              let p = dossier_find_link_equals(base + from, page.count - from) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(p))
    }
}
