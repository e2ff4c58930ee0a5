import Foundation
import Testing
@testable import DossierKit

/// A temp folder with `_site/` (three files, one in a sub-folder, one with a `%` in its
/// name) and `_site.manifest.json` made by scanning it.
private func makeSite() throws -> (root: URL, site: URL, manifest: URL) {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("bagit-\(UUID().uuidString)")
    let site = root.appendingPathComponent("_site")
    try FileManager.default.createDirectory(
        at: site.appendingPathComponent("recall"), withIntermediateDirectories: true)
    try Data("<h1>home</h1>\n".utf8).write(to: site.appendingPathComponent("index.html"))
    try Data("a,b\r\n1,2\r\n".utf8).write(to: site.appendingPathComponent("recall/p01.csv"))
    try Data("100%\n".utf8).write(to: site.appendingPathComponent("100%.txt"))
    let manifest = root.appendingPathComponent("_site.manifest.json")
    try SiteManifest.scan(site).encoded().write(to: manifest)
    return (root, site, manifest)
}

@Test func bagHasTheRFC8493LayoutAndVerifies() throws {
    let (root, site, manifest) = try makeSite()
    defer { try? FileManager.default.removeItem(at: root) }
    let bag = root.appendingPathComponent("bag")
    let (files, bytes) = try BagWriter(site: site, manifestURL: manifest, source: "demo", date: "2026-11-22").write(
        to: bag)
    #expect(files == 4)
    let manifestSize = try Data(contentsOf: manifest).count
    #expect(bytes == Int64(14 + 10 + 5 + manifestSize))
    let bagit = try String(contentsOf: bag.appendingPathComponent("bagit.txt"), encoding: .utf8)
    #expect(bagit == "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
    let info = try String(contentsOf: bag.appendingPathComponent("bag-info.txt"), encoding: .utf8)
    #expect(info.contains("Payload-Oxum: \(bytes).4\n"))
    #expect(info.contains("Bagging-Date: 2026-11-22\n"))
    let lines = try String(contentsOf: bag.appendingPathComponent("manifest-sha256.txt"), encoding: .utf8).split(
        separator: "\n")
    #expect(lines.map { String($0.split(separator: " ", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) }
            == ["data/site.manifest.json", "data/site/100%25.txt", "data/site/index.html", "data/site/recall/p01.csv"])
    // The checksum of index.html is SHA-256 of its bytes, computed here independently.
    let indexHex = FileHash.sha256(Data("<h1>home</h1>\n".utf8))
    #expect(lines.contains { $0 == "\(indexHex)  data/site/index.html" })
    #expect(try BagVerifier.verify(bag).isEmpty)
}

@Test func oneChangedPayloadByteFailsVerification() throws {
    let (root, site, manifest) = try makeSite()
    defer { try? FileManager.default.removeItem(at: root) }
    let bag = root.appendingPathComponent("bag")
    try BagWriter(site: site, manifestURL: manifest, source: "demo", date: "2026-11-22").write(to: bag)
    let file = bag.appendingPathComponent("data/site/recall/p01.csv")
    var data = try Data(contentsOf: file)
    data[0] ^= 0x01
    try data.write(to: file)
    let problems = try BagVerifier.verify(bag)
    #expect(problems.count == 1)
    #expect(problems.first?.contains("data/site/recall/p01.csv") == true)
}

@Test func extraAndMissingPayloadFilesAreReported() throws {
    let (root, site, manifest) = try makeSite()
    defer { try? FileManager.default.removeItem(at: root) }
    let bag = root.appendingPathComponent("bag")
    try BagWriter(site: site, manifestURL: manifest, source: "demo", date: "2026-11-22").write(to: bag)
    try Data("x".utf8).write(to: bag.appendingPathComponent("data/site/extra.html"))
    try FileManager.default.removeItem(at: bag.appendingPathComponent("data/site/index.html"))
    let problems = try BagVerifier.verify(bag).joined(separator: "\n")
    #expect(problems.contains("extra.html: not listed"))
    #expect(problems.contains("index.html: listed in manifest-sha256.txt but missing"))
    #expect(problems.contains("Payload-Oxum"))
}

@Test func zippedBagVerifiesAndSiteDriftIsRefused() throws {
    let (root, site, manifest) = try makeSite()
    defer { try? FileManager.default.removeItem(at: root) }
    let zip = root.appendingPathComponent("study.zip")
    try BagWriter(site: site, manifestURL: manifest, source: "demo", date: "2026-11-22").write(to: zip)
    #expect(try BagVerifier.verify(zip).isEmpty)
    // A site file edited after the manifest was written is not archived.
    try Data("<h1>changed</h1>\n".utf8).write(to: site.appendingPathComponent("index.html"))
    #expect(throws: DossierError.self) {
        try BagWriter(site: site, manifestURL: manifest, source: "demo", date: "2026-11-22").write(
            to: root.appendingPathComponent("bag2"))
    }
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("bag2").path))
}

@Test func bagSizeIsTheByteCountInDecimalUnitsWithOneDecimal() {
    #expect(BagInfoConfig.humanSize(0) == "0 bytes")
    #expect(BagInfoConfig.humanSize(1) == "1 byte")
    #expect(BagInfoConfig.humanSize(999) == "999 bytes")
    #expect(BagInfoConfig.humanSize(1000) == "1.0 kB")
    #expect(BagInfoConfig.humanSize(12_345) == "12.3 kB")
    #expect(BagInfoConfig.humanSize(999_960) == "1.0 MB")      // would print 1000.0 kB
    #expect(BagInfoConfig.humanSize(4_000_000) == "4.0 MB")
    #expect(BagInfoConfig.humanSize(1_234_000_000_000_000) == "1234.0 TB")
}

@Test func sha512BagListsEveryPayloadFileInBothManifestsAndVerifies() throws {
    let (root, site, manifest) = try makeSite()
    defer { try? FileManager.default.removeItem(at: root) }
    let bag = root.appendingPathComponent("bag")
    let config = BagInfoConfig(info: [("Contact-Name", "Jo Doe"), ("External-Identifier", "x-1")], sha512: true)
    try BagWriter(site: site, manifestURL: manifest, source: "demo", date: "2026-11-22", config: config).write(to: bag)
    let info = try String(contentsOf: bag.appendingPathComponent("bag-info.txt"), encoding: .utf8)
    #expect(info.contains("Contact-Name: Jo Doe\nExternal-Identifier: x-1\nBag-Size: "))
    let m512 = try String(contentsOf: bag.appendingPathComponent("manifest-sha512.txt"), encoding: .utf8)
    #expect(m512.split(separator: "\n").count == 4)
    #expect(m512.split(separator: "\n").allSatisfy { $0.split(separator: " ")[0].count == 128 })
    let tags = try String(contentsOf: bag.appendingPathComponent("tagmanifest-sha512.txt"), encoding: .utf8)
    #expect(tags.contains("  manifest-sha512.txt\n") && tags.contains("  manifest-sha256.txt\n"))
    #expect(try BagVerifier.verify(bag).isEmpty)
}
