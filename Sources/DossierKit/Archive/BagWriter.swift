#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Crypto
import Render
import WebDAV
import ZipArchive
import TextBasics

/// Writes a BagIt bag (RFC 8493, BagIt 1.0) of a built site: a folder, or a `.zip` of
/// that folder (one top-level directory named like the bag, as the RFC's serialization
/// section asks). See docs/archive.md.
///
/// ```
/// <bag>/bagit.txt                 BagIt-Version: 1.0, Tag-File-Character-Encoding: UTF-8
/// <bag>/bag-info.txt              Bag-Software-Agent, Bagging-Date, dossier.yml's archive fields,
///                                 Bag-Size, Payload-Oxum
/// <bag>/manifest-sha256.txt       <hex>  data/<path>, one per payload file, sorted
/// <bag>/manifest-sha512.txt       the same with SHA-512 (archive.sha512 or --sha512)
/// <bag>/tagmanifest-sha256.txt    the same for the tag files above (and tagmanifest-sha512.txt)
/// <bag>/data/site/…               every file the site manifest lists
/// <bag>/data/site.manifest.json   the site manifest (output files and the build's inputs)
/// ```
///
/// Only files the site manifest lists are archived, each checked against its hash, so
/// nothing else lying in the output folder (and no secret the build did not publish)
/// ends up in the bag.
public struct BagWriter: Sendable {
    public var site: URL
    public var manifestURL: URL
    /// `Source` in bag-info.txt (the project's name).
    public var source: String
    /// `External-Description` (the project's title), optional.
    public var description: String?
    /// `Bagging-Date`, `YYYY-MM-DD`.
    public var date: String
    /// Bag-Info fields from `dossier.yml` and the SHA-512 choice.
    public var config: BagInfoConfig

    public init(site: URL, manifestURL: URL, source: String, description: String? = nil, date: String,
                config: BagInfoConfig = BagInfoConfig()) {
        self.site = site
        self.manifestURL = manifestURL
        self.source = source
        self.description = description
        self.date = date
        self.config = config
    }

    /// Today's date (UTC), or the day of `SOURCE_DATE_EPOCH` when set (reproducible bags).
    public static func today(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let date = environment["SOURCE_DATE_EPOCH"].flatMap(Double.init)
            .map { Date(timeIntervalSince1970: $0) } ?? Date()
        return String(ISODateText.format(date).prefix(10))   // yyyy-MM-dd in UTC
    }

    /// Writes the bag to `destination` (a folder, or a zip when it ends in `.zip`).
    /// Nothing appears at `destination` unless the whole bag was written.
    @discardableResult
    public func write(to destination: URL, overwrite: Bool = false) throws -> (files: Int, bytes: Int64) {
        let fm = FileManager.default
        let zip = destination.pathExtension.lowercased() == "zip"
        let bagName = zip ? destination.deletingPathExtension().lastPathComponent : destination.lastPathComponent
        // First put back a bag a killed run had moved aside: it is then the existing bag.
        BagSwap.sweep(beside: destination, bagName: bagName)
        if fm.fileExists(atPath: destination.path) {
            guard overwrite else {
                throw DossierError(file: SitePaths.display(destination), "already exists (use --force to replace it)")
            }
            try BagReplaceCheck.check(destination, zip: zip, keep: [site, manifestURL.deletingLastPathComponent()])
        }
        let manifest = try SiteManifest.load(manifestURL)
        let manifestData = try Data(contentsOf: manifestURL)
        let work = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(bagName)\(BagSwap.workInfix)\(ProcessInfo.processInfo.processIdentifier)")
        try? fm.removeItem(at: work)
        let bag = zip ? work.appendingPathComponent(bagName) : work
        defer { try? fm.removeItem(at: work) }
        do {
            return try fill(bag, work: work, zip: zip, bagName: bagName, manifest: manifest, manifestData: manifestData,
                            destination: destination)
        } catch {
            throw BagWriter.named(error, work: work, bag: bag, destination: destination)
        }
    }

    /// Writes the bag into the work folder `bag` (inside `work`) and swaps it into place.
    private func fill(_ bag: URL, work: URL, zip: Bool, bagName: String, manifest: SiteManifest,
                      manifestData: Data, destination: URL) throws -> (files: Int, bytes: Int64) {
        let fm = FileManager.default
        try fm.createDirectory(at: bag.appendingPathComponent("data/site"), withIntermediateDirectories: true)

        // Payload: copy and hash in one pass, checking each file against the site manifest.
        var lines: [(path: String, hex: String, sha512: String)] = []
        var octets: Int64 = 0
        for e in manifest.files {
            let src = site.appendingPathComponent(e.path)
            guard let data = fm.contents(atPath: src.path) else {
                throw DossierError(file: SitePaths.display(src),
                                   "listed in the site manifest but missing; " + SiteManifest.rebuildAdvice)
            }
            let hex = FileHash.sha256(data)
            guard hex == e.sha256, Int64(data.count) == e.size else {
                throw DossierError(file: SitePaths.display(src),
                                   "changed since the site manifest was written; " + SiteManifest.rebuildAdvice)
            }
            let rel = "data/site/" + e.path
            let dst = bag.appendingPathComponent(rel)
            try fm.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FaultPoint.hit("archive: \(rel)")
            try data.write(to: dst)
            lines.append((rel, hex, config.sha512 ? BagWriter.sha512(data) : ""))
            octets += Int64(data.count)
        }
        try manifestData.write(to: bag.appendingPathComponent("data/site.manifest.json"))
        lines.append(("data/site.manifest.json", FileHash.sha256(manifestData),
                      config.sha512 ? BagWriter.sha512(manifestData) : ""))
        octets += Int64(manifestData.count)
        lines.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }   // (byte order: docs/archive.md)

        // Tag files.
        let bagit = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
        var info: [(String, String)] = [
            ("Bag-Software-Agent", "Dossier \(DossierVersion.string)"),
            ("Bagging-Date", date),
            ("Dossier-Version", DossierVersion.string),
            ("Source", source),
        ]
        if let description, !description.isEmpty { info.append(("External-Description", description)) }
        info += config.info
        info.append(("Bag-Size", BagInfoConfig.humanSize(octets)))
        info.append(("Payload-Oxum", "\(octets).\(lines.count)"))
        let bagInfo = info.map { "\($0.0): \(BagWriter.oneLine($0.1))\n" }.joined()
        let payloadManifest = lines.map { "\($0.hex)  \(BagWriter.encodePath($0.path))\n" }.joined()
        var tags: [(String, Data)] = [("bagit.txt", Data(bagit.utf8)), ("bag-info.txt", Data(bagInfo.utf8)),
                                      ("manifest-sha256.txt", Data(payloadManifest.utf8))]
        if config.sha512 {
            let m512 = lines.map { "\($0.sha512)  \(BagWriter.encodePath($0.path))\n" }.joined()
            tags.append(("manifest-sha512.txt", Data(m512.utf8)))
        }
        for (name, data) in tags { try data.write(to: bag.appendingPathComponent(name)) }
        tags.sort { $0.0 < $1.0 }
        let tagManifest = tags.map { "\(FileHash.sha256($0.1))  \($0.0)\n" }.joined()
        try Data(tagManifest.utf8).write(to: bag.appendingPathComponent("tagmanifest-sha256.txt"))
        if config.sha512 {
            let t512 = tags.map { "\(BagWriter.sha512($0.1))  \($0.0)\n" }.joined()
            try Data(t512.utf8).write(to: bag.appendingPathComponent("tagmanifest-sha512.txt"))
        }

        // Into place: swapped with the old bag, never removing it first.
        if zip {
            let tmpZip = work.appendingPathComponent(bagName + ".zip")
            let names = lines.map(\.path) + tags.map(\.0) + ["tagmanifest-sha256.txt"]
                + (config.sha512 ? ["tagmanifest-sha512.txt"] : [])
            do {
                try BagWriter.zip(bag, names: names, as: bagName, to: tmpZip, day: date)
            } catch let z as ZipError {   // (a file-system error is named by `named`)
                let what = z.description.replacingAll(tmpZip.path, with: "the zip")
                throw DossierError(file: SitePaths.display(destination),
                                   what.hasPrefix("cannot write the zip") ? what : "cannot write the zip (\(what))")
            }
            try BagSwap.replace(destination, with: tmpZip)
        } else {
            try BagSwap.replace(destination, with: work)
        }
        try FaultPoint.hit("archive: remove the work folder")
        return (lines.count, octets)
    }

    /// An error met inside the work folder `work` (the bag's top folder there: `bag`), named
    /// after the bag it was for — the work folder is gone by the time anyone reads the
    /// message: `<destination>: <what> (writing <path inside the bag>)`, or `(writing the zip)`.
    static func named(_ error: Error, work: URL, bag: URL, destination: URL) -> Error {
        guard var e = (error as? DossierError) ?? FileSystemErrors.describe(error) else { return error }
        for i in e.diagnostics.indices {
            guard let file = e.diagnostics[i].file, file == work.path || file.hasPrefix(work.path + "/") else {
                continue
            }
            e.diagnostics[i].file = SitePaths.display(destination)
            if file == work.path || file == bag.path { continue }   // the work folder itself
            let what = file.hasPrefix(bag.path + "/") ? String(file.dropFirst(bag.path.count + 1)) : "the zip"
            e.diagnostics[i].message += " (writing \(what))"
        }
        return e
    }

    /// Zips the bag's files `names` (relative to `bag`) as `<top>/<name>`, in byte order
    /// of the names (docs/archive.md, "The zip's bytes").
    static func zip(_ bag: URL, names: [String], as top: String, to zip: URL, day: String) throws {
        let writer = try ZipWriter(path: zip.path, day: day)
        for name in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            guard let data = FileManager.default.contents(atPath: bag.appendingPathComponent(name).path) else {
                throw ZipError("\(name) cannot be read back")
            }
            try writer.add(name: top + "/" + name, contents: [UInt8](data))
        }
        try writer.finish()
    }

    /// Lower-case hex SHA-512.
    static func sha512(_ data: Data) -> String {
        SHA512.hash(data: data).hexString
    }

    /// RFC 8493 §2.1.3: in manifests, CR, LF and `%` in a path are percent-encoded.
    static func encodePath(_ path: String) -> String {
        path.replacingAll("%", with: "%25")
            .replacingAll("\n", with: "%0A")
            .replacingAll("\r", with: "%0D")
    }

    static func decodePath(_ path: String) -> String {
        path.replacingAll("%0A", with: "\n").replacingAll("%0a", with: "\n")
            .replacingAll("%0D", with: "\r").replacingAll("%0d", with: "\r")
            .replacingAll("%25", with: "%")
    }

    /// A bag-info value on one line (line breaks become spaces).
    static func oneLine(_ s: String) -> String {
        s.replacingAll("\r\n", with: " ").replacingAll("\n", with: " ").replacingAll("\r", with: " ")
    }
}
