#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render

/// What `archive --force` may replace (docs/archive.md, "Replacing a bag"): only a bag —
/// a folder with a `bagit.txt`, or a zip whose directory names a `bagit.txt` at its top —
/// and never the project, its site, or a folder holding either. Before, `--output` naming
/// the project folder with `--force` replaced the whole project with the bag.
enum BagReplaceCheck {
    /// Throws, before anything is written, when `destination` exists and is not a bag this
    /// command may replace. `keep`: folders that must survive (the site, the project).
    static func check(_ destination: URL, zip: Bool, keep: [URL]) throws {
        let path = destination.path
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        let shown = SitePaths.display(destination)
        let mine = resolved(path)
        for folder in keep {
            let kept = resolved(folder.path)
            if kept == mine || kept.hasPrefix(mine.hasSuffix("/") ? mine : mine + "/") {
                throw DossierError(file: shown, "holds \(SitePaths.display(folder)), which the bag is made from; "
                    + "--force replaces only a bag: choose an --output outside the project")
            }
        }
        let isFolder = st.st_mode & S_IFMT == S_IFDIR
        let isBag = zip ? (!isFolder && zipNamesBagit(path)) : (isFolder && regularFile(path + "/bagit.txt"))
        guard isBag else {
            throw DossierError(file: shown, "is not a bag (" + (zip ? "no zip with a bagit.txt" : "no bagit.txt in it")
                + "); --force replaces only a bag, never other files: choose another --output")
        }
    }

    static func resolved(_ path: String) -> String {
        guard let r = realpath(path, nil) else { return path }
        defer { free(r) }
        return String(cString: r)
    }

    static func regularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    /// Whether the zip at `path`'s central directory names `bagit.txt` or `<top>/bagit.txt`
    /// (read from its end-of-central-directory record; zip64 included). A file that is not
    /// a zip, or a directory past 256 MiB, is not a bag.
    static func zipNamesBagit(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 22 else { return false }
        let size = Int(st.st_size)
        let tail = read(fd, at: max(0, size - 65_557), count: min(size, 65_557))
        guard let eocd = lastIndex(of: [0x50, 0x4B, 0x05, 0x06], in: tail), eocd + 22 <= tail.count else {
            return false
        }
        var cdSize = Int(le32(tail, eocd + 12)), cdOffset = Int(le32(tail, eocd + 16))
        if cdOffset == 0xFFFF_FFFF || cdSize == 0xFFFF_FFFF, eocd >= 20, le32(tail, eocd - 20) == 0x0706_4B50 {
            let record = Int(le64(tail, eocd - 12))      // the zip64 end-of-central-directory record
            let z = read(fd, at: record, count: 56)
            guard z.count == 56, le32(z, 0) == 0x0606_4B50 else { return false }
            cdSize = Int(le64(z, 40)); cdOffset = Int(le64(z, 48))
        }
        guard cdSize > 0, cdSize <= 1 << 28, cdOffset >= 0, cdOffset + cdSize <= size else { return false }
        let cd = read(fd, at: cdOffset, count: cdSize)
        var at = 0
        while at + 46 <= cd.count, le32(cd, at) == 0x0201_4B50 {
            let nameLength = Int(le16(cd, at + 28)), extra = Int(le16(cd, at + 30)), comment = Int(le16(cd, at + 32))
            guard at + 46 + nameLength <= cd.count else { return false }
            let name = String(decoding: cd[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            if parts.last == "bagit.txt" && parts.count <= 2 { return true }
            at += 46 + nameLength + extra + comment
        }
        return false
    }

    private static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let got = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return got > 0 ? Array(out.prefix(got)) : []
    }

    private static func lastIndex(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= marker.count else { return nil }
        return (0...(bytes.count - marker.count)).reversed().first { i in
            bytes[i] == marker[0] && bytes[i + 1] == marker[1] && bytes[i + 2] == marker[2] && bytes[i + 3] == marker[3]
        }
    }

    private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16
    }
    private static func le64(_ b: [UInt8], _ i: Int) -> UInt64 {
        UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32
    }
}
