import Foundation
import Testing
@testable import Vault

@Suite struct ImportTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// A secret-free rendering of the import for golden comparison: secrets appear only as
    /// their length (the fixture values are asserted directly in each test).
    static func golden(_ r: ImportResult) -> String {
        var lines = ["format \(r.format.rawValue)"]
        for (k, v) in r.skipped.sorted(by: { $0.key < $1.key }) { lines.append("skipped \(k): \(v)") }
        for i in r.items.sorted(by: { ($0.title, $0.username) < ($1.title, $1.username) }) {
            lines.append(
                [
                    i.kind.rawValue, i.title, i.username, i.website, i.folder,
                    "password \(i.password.reveal.unicodeScalars.count)",
                    "details \(i.details.reveal.unicodeScalars.count)", "text \(i.text.reveal.unicodeScalars.count)",
                    "created \(Int(i.created.timeIntervalSince1970))",
                    "modified \(Int(i.modified.timeIntervalSince1970))"
                ]
                .joined(separator: " | "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func check(_ file: String, _ format: ImportFormat) throws -> ImportResult {
        let r = try Importer.read(url: fixture("import/\(file)"), now: Self.now)
        #expect(r.format == format)
        let expected = try String(contentsOf: fixture("import/golden/\(file).txt"), encoding: .utf8)
        #expect(Self.golden(r) == expected)
        return r
    }

    func item(_ r: ImportResult, _ title: String) throws -> VaultItem {
        try #require(r.items.first { $0.title == title })
    }

    @Test func bitwardenJSON() throws {
        let r = try check("bitwarden.json", .bitwardenJSON)
        #expect(r.skipped == ["card": 1, "identity": 1])
        let mail = try item(r, "Company mail")
        #expect(mail.password.reveal == "bw-Pass-1")
        #expect(mail.details.reveal == "Recovery codes:\nAAAA-BBBB\nCCCC-DDDD")
        #expect(mail.folder == "Work")
        #expect(mail.id == UUID(uuidString: "0f8e1a52-2d4b-4a3e-9c1d-7a0b3c4d5e01"))
        #expect(try item(r, "Wifi").text.reveal == "network: home\nkey: bw-note-secret")
    }

    @Test func bitwardenCSV() throws {
        let r = try check("bitwarden.csv", .bitwardenCSV)
        let mail = try item(r, "Company mail")
        #expect(mail.password.reveal == "bwcsv-Pass-1")
        #expect(mail.details.reveal == "Line one\r\nline two, with comma")
        #expect(try item(r, "Wifi").text.reveal == "key: \"bwcsv-note\"")
    }

    @Test func keepassXML() throws {
        let r = try check("keepass.xml", .keepassXML)
        #expect(r.skipped == ["recycle bin": 1])
        let bank = try item(r, "Bank")
        #expect(bank.password.reveal == "kp-Pass-1 & more")
        #expect(bank.details.reveal == "kp-note line 1\nkp-note line 2")
        #expect(!r.items.contains { $0.password.reveal == "kp-old-Pass" }, "history versions are not entries")
        #expect(try item(r, "Shop").folder == "Shopping")
    }

    @Test func keepassxcCSV() throws {
        let r = try check("keepassxc.csv", .keepassxcCSV)
        #expect(r.skipped == ["recycle bin": 1])
        #expect(try item(r, "Mail").details.reveal == "multi\nline \"quoted\" note")
        #expect(try item(r, "Steam").password.reveal == "kx-Pass-2")
    }

    @Test func onePasswordCSV() throws {
        let r = try check("onepassword.csv", .onePasswordCSV)
        #expect(r.skipped == ["archived": 1])
        #expect(try item(r, "Router").password.reveal == "op-Pass-1")
        #expect(try item(r, "Door code").kind == .note)
        #expect(try item(r, "Door code").text.reveal == "op-note-1234")
    }

    @Test func chromeCSV() throws {
        let r = try check("chrome.csv", .chromeCSV)
        #expect(try item(r, "app").details.reveal == "note with\r\ntwo lines")
        #expect(try item(r, "mail.example.com").password.reveal == "ch-Pass-1")
    }

    @Test func firefoxCSV() throws {
        let r = try check("firefox.csv", .firefoxCSV)
        let www = try item(r, "www.example.com")
        #expect(www.password.reveal == "ff-Pass-1")
        #expect(www.passwordChanged == Date(timeIntervalSince1970: 1_650_000_000))
        #expect(www.id == UUID(uuidString: "3f2504e0-4f89-11d3-9a0c-0305e82c3301"))
    }

    @Test func unknownAndEncryptedExportsAreRefused() {
        #expect(throws: VaultError.self) { try Importer.read(data: Data("a,b,c\n1,2,3\n".utf8)) }
        #expect(throws: VaultError.self) { try Importer.read(data: Data(#"{"encrypted": true, "items": []}"#.utf8)) }
        #expect(throws: VaultError.self) { try Importer.read(data: Data("<html></html>".utf8)) }
    }

    @Test func raggedRowNamesItsLine() {
        let text = "name,url,username,password\nx,https://x,u,p\ny,https://y\n"
        do {
            _ = try Importer.read(data: Data(text.utf8), file: "c.csv")
            Issue.record("accepted a short row")
        } catch let e as VaultError {
            #expect(e.line == 3)
            #expect(e.file == "c.csv")
        } catch { Issue.record("\(error)") }
    }
}

@Suite struct CSVReaderTests {
    @Test func quotedFieldsSpanLinesAndEscapeQuotes() throws {
        let t = try CSVTable(text: "\u{FEFF}a,b\r\n\"x\"\"y\",\"1\n2\"\r\n\r\nlast,\n")
        #expect(t.rows.map(\.fields) == [["a", "b"], ["x\"y", "1\n2"], ["last", ""]])
        #expect(t.rows.map(\.line) == [1, 2, 5])
    }

    @Test func unterminatedQuoteIsAnErrorAtItsLine() {
        do {
            _ = try CSVTable(text: "a,b\nc,\"open\nmore\n", file: "f.csv")
            Issue.record("accepted an open quote")
        } catch let e as VaultError {
            #expect(e.line == 2)
        } catch { Issue.record("\(error)") }
    }
}
