#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Crypto
import Render
import ZipArchive
import TextBasics

/// Checks a BagIt bag (folder or `.zip`) as RFC 8493 §3 asks: `bagit.txt` is well
/// formed; every payload manifest (`manifest-{sha512,sha256,sha1,md5}.txt`) lists every
/// file under `data/`, and each listed file exists with that checksum; every tag
/// manifest's files match; `Payload-Oxum` in bag-info.txt, when present, matches.
/// A bag with a `fetch.txt` is reported as incomplete.
public enum BagVerifier {
    /// Problems found, each `path: what is wrong`; empty when the bag is valid.
    public static func verify(_ url: URL) throws -> [String] {
        let fm = FileManager.default
        var isDir = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDir) else {
            throw DossierError(file: SitePaths.display(url), "no such bag")
        }
        if isDir { return verifyFolder(url, shown: SitePaths.display(url)) }
        // A zip: unpack into a temporary folder; the bag is its single top-level folder.
        let tmp = fm.temporaryDirectory.appendingPathComponent("dossier-bag-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: tmp) }
        do {
            guard let bytes = fm.contents(atPath: url.path) else { throw ZipError("cannot be read") }
            try ZipReader([UInt8](bytes)).unpack(to: tmp)
        } catch {
            return ["\(SitePaths.display(url)): not a readable zip, or damaged (\(error))"]
        }
        let top = (try? fm.contentsOfDirectory(atPath: tmp.path))?.filter { !$0.hasPrefix("__MACOSX") } ?? []
        guard top.count == 1 else {
            return [
                "\(SitePaths.display(url)): a zipped bag must hold exactly one top-level folder (found \(top.count))"
            ]
        }
        return verifyFolder(tmp.appendingPathComponent(top[0]), shown: SitePaths.display(url) + ":" + top[0])
    }

    static let algorithms = ["sha512", "sha256", "sha1", "md5"]

    static func verifyFolder(_ bag: URL, shown: String) -> [String] {
        var problems: [String] = []
        let fm = FileManager.default
        func read(_ name: String) -> String? {
            fm.contents(atPath: bag.appendingPathComponent(name).path).map { String(decoding: $0, as: UTF8.self) }
        }
        // bagit.txt
        guard let declaration = read("bagit.txt") else { return ["\(shown)/bagit.txt: missing"] }
        let declLines = declaration.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).map(String.init)
        if declLines.count != 2 || !declLines[0].hasPrefix("BagIt-Version: ")
            || !declLines[1].hasPrefix("Tag-File-Character-Encoding: ")
        {
            problems.append("\(shown)/bagit.txt: must be two lines, BagIt-Version and Tag-File-Character-Encoding")
        }
        if fm.fileExists(atPath: bag.appendingPathComponent("fetch.txt").path) {
            problems.append("\(shown)/fetch.txt: the bag lists files to fetch, so it is not complete")
        }
        // Payload files present.
        let data = bag.appendingPathComponent("data")
        var payload = Set<String>()
        if let walked = FolderWalk.entries(under: data.path, skipHidden: false) {
            for rel in walked.filter({ !$0.isFolderFollowingLinks }).map(\.path)
            where fm.fileExists(atPath: data.appendingPathComponent(rel).path) {
                payload.insert("data/" + rel)
            }
        } else {
            problems.append("\(shown)/data: missing payload folder")
        }
        // Payload manifests.
        var anyManifest = false
        for alg in algorithms {
            let name = "manifest-\(alg).txt"
            guard let text = read(name) else { continue }
            anyManifest = true
            let entries = parseManifest(text, name: name, shown: shown, problems: &problems)
            let listed = Set(entries.map(\.path))
            for e in entries {
                let file = bag.appendingPathComponent(e.path)
                if !e.path.hasPrefix("data/") {
                    problems.append("\(shown)/\(name):\(e.line): '\(e.path)' is outside data/"); continue
                }
                guard let h = hash(file, alg) else {
                    problems.append("\(shown)/\(e.path): listed in \(name) but missing"); continue
                }
                if h != e.hash.lowercased() {
                    problems.append("\(shown)/\(e.path): \(alg) checksum does not match \(name):\(e.line)")
                }
            }
            for p in payload.subtracting(listed).sorted() { problems.append("\(shown)/\(p): not listed in \(name)") }
        }
        if !anyManifest { problems.append("\(shown): no payload manifest (manifest-sha256.txt or another algorithm)") }
        // Tag manifests.
        for alg in algorithms {
            let name = "tagmanifest-\(alg).txt"
            guard let text = read(name) else { continue }
            for e in parseManifest(text, name: name, shown: shown, problems: &problems) {
                guard let h = hash(bag.appendingPathComponent(e.path), alg) else {
                    problems.append("\(shown)/\(e.path): listed in \(name) but missing"); continue
                }
                if h != e.hash.lowercased() {
                    problems.append("\(shown)/\(e.path): \(alg) checksum does not match \(name):\(e.line)")
                }
            }
        }
        // Payload-Oxum.
        if let info = read("bag-info.txt") {
            for line in tagLines(info) where line.hasPrefix("Payload-Oxum:") {
                let value = line.dropFirst("Payload-Oxum:".count).trimmingWhitespace()
                let parts = value.split(separator: ".")
                var bytes: Int64 = 0
                for p in payload {
                    bytes += Int64(
                        FolderWalk.size(atPath: bag.appendingPathComponent(p).path) ?? 0)
                }
                if parts.count != 2 || Int64(parts[0]) != bytes || Int(parts[1]) != payload.count {
                    problems.append(
                        "\(shown)/bag-info.txt: Payload-Oxum \(value) does not match the payload "
                            + "(\(bytes).\(payload.count))"
                    )
                }
            }
        }
        return problems
    }

    struct ManifestLine { var hash: String; var path: String; var line: Int }

    /// The lines of a tag file, ended by LF, CR LF or CR (RFC 8493 §2.2.1). (A Swift
    /// `Character` holds CR LF as one: splitting on "\n" alone kept such a file whole.)
    static func tagLines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
    }

    static func parseManifest(_ text: String, name: String, shown: String, problems: inout [String]) -> [ManifestLine] {
        var out: [ManifestLine] = []
        for (i, raw) in tagLines(text).enumerated() {
            let line = String(raw)
            if line.isEmpty { continue }
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else {
                problems.append("\(shown)/\(name):\(i + 1): expected `checksum path`"); continue
            }
            let hash = String(line[..<space])
            let path = line[space...].drop(while: { $0 == " " || $0 == "\t" })
            var p = BagWriter.decodePath(String(path))
            if p.hasPrefix("./") { p.removeFirst(2) }
            if p.split(separator: "/").contains("..") || p.hasPrefix("/") {
                problems.append("\(shown)/\(name):\(i + 1): path '\(p)' leaves the bag"); continue
            }
            out.append(ManifestLine(hash: hash, path: p, line: i + 1))
        }
        return out
    }

    /// Hex digest of a file with a BagIt algorithm name, or nil when it cannot be read.
    static func hash(_ url: URL, _ alg: String) -> String? {
        guard let handle = PlainFile(forReadingAtPath: url.path) else { return nil }
        defer { try? handle.close() }
        var isDir = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), isDir { return nil }
        func run<H: HashFunction>(_ h: inout H) -> String {
            while true {
                let chunk = handle.readData(ofLength: 1 << 20)
                if chunk.isEmpty { break }
                h.update(data: chunk)
            }
            return FileHash.hex(h.finalize())
        }
        switch alg {
        case "sha512": var h = SHA512(); return run(&h)
        case "sha256": var h = SHA256(); return run(&h)
        case "sha1": var h = Insecure.SHA1(); return run(&h)
        case "md5": var h = Insecure.MD5(); return run(&h)
        default: return nil
        }
    }
}
