#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

extension OutputTree {
    /// Copies a file from outside the site (assets, media, static files), hashing it as it
    /// goes in chunks of 1 MiB: memory stays flat whatever the file's size.
    @discardableResult
    public func copy(_ source: URL, to path: String, owner: String) throws -> ManifestFile {
        if let same = try unchangedInPatch(source, at: OutputTree.compact(path), owner: owner) { return same }
        guard let input = PlainFile(forReadingAtPath: source.path) else {
            throw FileSystemErrors.unreadable(source.path, errno: errno)
        }
        defer { try? input.close() }
        let stream = try openStream(OutputTree.compact(path), owner: owner)
        do {
            while true {
                let chunk = try input.read(upToCount: OutputTree.copyChunk) ?? Data()
                if chunk.isEmpty { break }
                try stream.append(chunk)
            }
        } catch {
            abandon(stream)
            throw FileSystemErrors.describe(error) ?? error
        }
        return try finishStream(stream)
    }

    /// In a patch, the live copy's entry when `source` has its size and SHA-256: such a file
    /// is not written at all, not even into the staging folder (docs/output-manifest.md,
    /// "Patch"), so a one-line change needs no room for a second copy of `static/`. Nil
    /// otherwise (the file is then copied as usual). A source of another size is not read.
    func unchangedInPatch(_ source: URL, at path: String, owner: String) throws -> ManifestFile? {
        guard let target = patchTarget, let old = live[path] else { return nil }
        var st = stat()
        guard stat(source.path, &st) == 0, Int64(st.st_size) == old.size,
              access(target.path + "/" + path, F_OK) == 0 else { return nil }
        let (hex, size) = try FileHash.sha256(source)
        guard size == old.size, hex == old.sha256 else { return nil }
        try OutputTree.check(path, owner: owner)
        try claim(path, owner: owner)
        return old
    }
}
