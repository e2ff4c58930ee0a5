import CMarkArena
import Testing
@testable import Render

/// `ByteSearch.find` (the table pass's and the spliced pages' search) against a plain
/// search, on random texts made of the needle's own bytes, so that partial matches,
/// overlaps and matches at either end are common.
@Suite struct ByteSearchTests {
    @Test func findAgreesWithAPlainSearch() {
        var rng = SystemRandomNumberGenerator()
        for needle in ["<!--dossier-splice-->", "ab", "aab", "<", "<table", "</table>"] {
            let n = Array(needle.utf8)
            let alphabet = Array(Set(n)) + [UInt8(ascii: "z")]
            for _ in 0..<400 {
                let count = Int.random(in: 0...60, using: &rng)
                let bytes = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
                let from = Int.random(in: -2...count + 1, using: &rng)
                var expected: Int?
                var i = max(0, from)
                while expected == nil, i + n.count <= count {
                    if Array(bytes[i..<i + n.count]) == n { expected = i }
                    i += 1
                }
                let got = bytes.withUnsafeBufferPointer { ByteSearch.find(needle, in: $0, from: from) }
                #expect(got == expected, "\(needle) in \(bytes) from \(from)")
            }
        }
    }

    /// `dossier_memmem` (memchr to the needle's first byte, then glibc's memmem after 16
    /// false starts) against glibc's memmem itself, on texts long enough to pass the
    /// hand-over, where the first byte is frequent and near-matches are common.
    @Test func firstByteSearchAgreesWithGlibcMemmem() {
        var rng = SystemRandomNumberGenerator()
        for needle in ["<h", "</td>", "<tr", "rowspan", "aab", "a", "abab", "<!--x-->"] {
            let n = Array(needle.utf8)
            let alphabet = Array(Set(n)) + [UInt8(ascii: "z"), UInt8(ascii: "<")]
            for _ in 0..<600 {
                let count = Int.random(in: 0...400, using: &rng)
                var bytes = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
                if count > n.count, Bool.random(using: &rng) {      // a match somewhere, maybe late
                    let at = Int.random(in: 0...(count - n.count), using: &rng)
                    bytes.replaceSubrange(at..<(at + n.count), with: n)
                }
                let start = Int.random(in: 0...count, using: &rng)
                bytes.withUnsafeBufferPointer { b in
                    let hay = b.baseAddress.map { $0 + start }, len = count - start
                    let got = dossier_memmem(hay, len, n, n.count)
                    let want = dossier_memmem_libc(hay, len, n, n.count)
                    #expect(got == want, "\(needle) in \(bytes) from \(start)")
                }
            }
        }
    }

    /// `dossier_find_pair` (16 places at once) against the plain walk, on texts of 0–400
    /// bytes made mostly of the pair's own bytes (so near misses, `aa…b` runs and a pair
    /// across the 16-byte steps are common), from every start offset's parity.
    @Test func pairSearchAgreesWithThePlainWalk() {
        var rng = SystemRandomNumberGenerator()
        for (a, b) in [(UInt8(ascii: "<"), UInt8(ascii: "h")), (0x3C, 0x3C), (0x00, 0xFF), (0x61, 0x62)] {
            let alphabet = [a, b, UInt8(ascii: "z"), a, b]
            for _ in 0..<3_000 {
                let count = Int.random(in: 0...400, using: &rng)
                var bytes = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
                if count > 40, Bool.random(using: &rng) {         // no pair until late, or none
                    for k in 0..<(count - Int.random(in: 0...40, using: &rng)) where bytes[k] == a { bytes[k] = 0x7A }
                }
                let start = Int.random(in: 0...count, using: &rng)
                bytes.withUnsafeBufferPointer { buf in
                    let hay = buf.baseAddress.map { $0 + start }, len = count - start
                    #expect(dossier_find_pair(hay, len, a, b) == dossier_find_pair_plain(hay, len, a, b),
                            "\(a) \(b) in \(bytes) from \(start)")
                }
            }
        }
    }

    /// `dossier_next_non_ascii` (32 bytes at a step) against its plain walk: one
    /// non-ASCII byte (0x80, 0xC3, 0xFF) at every place of buffers of 0–100 bytes,
    /// started from every place; none at all; random bytes from every start.
    @Test func nextNonASCIIAgreesWithThePlainWalk() {
        var checked = 0
        for count in 0...100 {
            for at in -1..<count {
                for high: UInt8 in [0x80, 0xC3, 0xFF] {
                    var bytes = [UInt8](repeating: 0x7F, count: count)
                    if at >= 0 { bytes[at] = high }
                    bytes.withUnsafeBufferPointer { buf in
                        for from in 0...count {
                            let fast = dossier_next_non_ascii(buf.baseAddress, count, from)
                            #expect(fast == dossier_next_non_ascii_plain(buf.baseAddress, count, from),
                                    "\(count) bytes, 0x\(String(high, radix: 16)) at \(at), from \(from)")
                            #expect(fast == (at >= from ? at : count))
                            checked += 1
                        }
                    }
                }
            }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...300, using: &rng)
            let bytes = (0..<count).map { _ in Int.random(in: 0..<40, using: &rng) == 0 ? UInt8(0xE2) : UInt8(0x61) }
            bytes.withUnsafeBufferPointer { buf in
                for from in 0...count {
                    #expect(ByteSearch.nextNonASCII(in: buf, from: from)
                            == dossier_next_non_ascii_plain(buf.baseAddress, count, from))
                }
            }
        }
        #expect(checked > 100_000)
    }

    /// `dossier_find_link_equals` (16 places at once) against its plain walk, on texts of
    /// `=`, `f`, `c` and others, hits at every place of a block and across blocks.
    @Test func linkEqualsSearchAgreesWithThePlainWalk() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array("=fcz=\" h".utf8)
        var hits = 0
        for _ in 0..<6_000 {
            let count = Int.random(in: 0...120, using: &rng)
            var bytes = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
            if count > 40, Bool.random(using: &rng) {          // none until late, or none at all
                for k in 0..<(count - Int.random(in: 0...40, using: &rng)) where bytes[k] == 0x3D { bytes[k] = 0x7A }
            }
            let start = Int.random(in: 0...count, using: &rng)
            bytes.withUnsafeBufferPointer { buf in
                let hay = buf.baseAddress.map { $0 + start }, len = count - start
                let fast = dossier_find_link_equals(hay, len), plain = dossier_find_link_equals_plain(hay, len)
                #expect(fast == plain, "\(bytes) from \(start)")
                if plain != nil { hits += 1 }
                let offset = buf.isEmpty ? nil : ByteSearch.nextLinkEquals(in: buf, from: start)
                #expect(offset == plain.map { UnsafeRawPointer(buf.baseAddress!).distance(to: $0) }, "\(bytes)")
            }
        }
        #expect(hits > 1_000)
    }
}
