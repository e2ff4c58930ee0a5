import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render

// What the build keeps out of memory, or keeps once, so that a clean build's peak does
// not grow with the size of the site (docs/incremental.md, "Round six: memory").

extension BuildContext {
    // MARK: Records

    /// This build's ``RecordSpill``, made on first use beside the staging folder.
    func recordSpill() throws -> RecordSpill {
        lock.lock(); defer { lock.unlock() }
        if let spill { return spill }
        let made = try RecordSpill(in: tree!.staging.deletingLastPathComponent())
        spill = made
        return made
    }

    // MARK: Links

    /// `links` sharing the storage of an equal list seen before, else of equal texts seen
    /// before: every page of a kind repeats the same links (navigation, assets, its own
    /// files by relative name — every participant page of a study has the same list), kept
    /// for the link check and the state until the build ends (about 0.6 KB a study
    /// participant as copies, 0.25 KB as one list per page).
    ///
    /// The hashes are computed before the build's lock is taken (hashed under it, every
    /// page's links kept the other cores waiting: 1 % of a pages build).
    ///
    /// Each text is hashed once: the list's hash is made from its texts' hashes (equal
    /// lists have equal texts, so equal hashes; lists are still told apart by comparing).
    ///
    /// A text equal to the one before it (the layout writes the home page's link three or
    /// four times in a row) takes that one's hash and shared storage without a lookup.
    func interned(_ links: [String]) -> [String] {
        var textHashes: [Int] = [], repeated: [Bool] = []
        textHashes.reserveCapacity(links.count); repeated.reserveCapacity(links.count)
        for k in links.indices {
            repeated.append(k > 0 && Self.sameBytes(links[k], links[k - 1]))
            textHashes.append(repeated[k] ? textHashes[k - 1] : links[k].hashValue)
        }
        let listHash = textHashes.hashValue
        lock.lock(); defer { lock.unlock() }
        if let known = linkLists[listHash]?.first(where: { Self.sameBytes($0, links) }) { return known }
        var list = links
        // (Shorter texts are stored inline: nothing to share.)
        for (k, text) in links.enumerated() where text.utf8.count > 15 {
            if repeated[k] {
                list[k] = list[k - 1]
            } else if let same = linkTexts[textHashes[k]]?.first(where: { Self.sameBytes($0, text) }) {
                list[k] = same
            } else {
                linkTexts[textHashes[k], default: []].append(text)
            }
        }
        linkLists[listHash, default: []].append(list)
        return list
    }

    /// Whether two texts are the same bytes. `==` is not enough here: it holds canonically
    /// equivalent texts equal ("é" as one scalar and as "e" + U+0301), and a link is a file
    /// name, where those are two different files.
    ///
    /// The lengths first, then one `memcmp` of the two texts' UTF-8 (the byte-by-byte walk of
    /// `elementsEqual` over the two `utf8` views was 1,300 instructions a text, 0.9 % of a
    /// pages build); its twin, that walk, is compared in `SitePathLookupTests`.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    /// ``sameBytes(_:_:)`` for every text of two lists, in order.
    static func sameBytes(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { sameBytes($0, $1) }
    }

    // MARK: The manifest

    /// The manifest written in pieces (``SiteManifest/writeJSON(pieceSize:_:)``), not as one 2 MB text.
    func writeManifest(_ manifest: SiteManifest, to url: URL) throws {
        try AtomicFile.write(to: url, sync: false) { write in
            try manifest.writeJSON { try $0.withUnsafeBytes { try write($0) } }
        }
    }

    /// Whether the file at `url` holds exactly `manifest`'s bytes: the pieces compared
    /// with the file as they are made, stopping at the first difference.
    func manifestOnDisk(equals manifest: SiteManifest, at url: URL) -> Bool {
        struct Differs: Error {}
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var disk = [UInt8]()
        func read(_ count: Int) -> Bool {
            disk = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = disk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, count - got) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                got += n
            }
            return true
        }
        do {
            try manifest.writeJSON { (piece: [UInt8]) throws(Differs) in
                guard !piece.isEmpty else { return }
                guard read(piece.count), disk == piece else { throw Differs() }
            }
        } catch { return false }
        var byte: UInt8 = 0
        return Glibc.read(fd, &byte, 1) == 0          // and nothing after the last piece
    }

    // MARK: Pages written piece by piece (PageSplice)

    /// Writes a page whose rendered `html` holds ``PageSplice/marker`` (once): the text
    /// before it, the splice's pieces (control characters made visible, as the renderer
    /// does to a whole page), the text after it. Returns the file and the page's links in
    /// page order, as ``LinkChecker/links(in:)`` finds them in the whole page (a piece
    /// never splits an attribute).
    func writeSpliced(
        _ html: String, _ splice: PageSplice, to path: String, owner: String
    ) throws -> (ManifestFile, [String]) {
        var html = html
        return try html.withUTF8 { page in
            // (``ByteSearch``: the generic `firstRange(of:)` was a sixth of a one-change
            // build of 500 participants.)
            guard let at = ByteSearch.find(PageSplice.marker, in: page, from: 0) else {
                // A project's own template may leave the part out: the page is then as rendered.
                return (
                    try tree!.write(bytes: UnsafeRawBufferPointer(page), to: path, owner: owner),
                    LinkChecker.links(in: page)
                )
            }
            let end = at + PageSplice.marker.utf8.count
            guard ByteSearch.find(PageSplice.marker, in: page, from: end) == nil else {
                throw DossierError("page \(path): the splice marker occurs more than once in the rendered page")
            }
            let before = UnsafeBufferPointer(rebasing: page[..<at]), after = UnsafeBufferPointer(rebasing: page[end...])
            let stream = try tree!.openStream(path, owner: owner)
            var links = LinkChecker.links(in: before)
            try stream.append(UnsafeRawBufferPointer(before))
            try splice.pieces { piece in
                let shown = ControlCharacters.displayUTF8(piece)
                links += LinkChecker.links(in: shown)
                try stream.append(Data(shown.utf8))
            }
            links += LinkChecker.links(in: after)
            try stream.append(UnsafeRawBufferPointer(after))
            return (try tree!.finishStream(stream), links)
        }
    }
}
