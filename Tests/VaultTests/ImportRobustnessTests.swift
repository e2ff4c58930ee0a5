import Foundation
import Testing
@testable import Vault

@Suite struct ImportRobustnessTests {
    @Test func crlfCSVWithQuotedMultiLineFieldsImports() throws {
        // a bare LF inside a quoted field of a CRLF file, past character 4,096
        let long = String(repeating: "x", count: 5000)
        let csv =
            "name,url,username,password,note\r\nMail,https://m.example.com,jo,pw1,\"\(long)\nsecond "
                + "line\"\r\nBank,https://b.example.com,jo,pw2,\"a\r\nb\"\r\n"
        let r = try Importer.read(data: Data(csv.utf8))
        #expect(r.format == .chromeCSV)
        #expect(r.items.map(\.title) == ["Mail", "Bank"])
        #expect(r.items[0].details.reveal == long + "\nsecond line")
        #expect(r.items[1].details.reveal == "a\r\nb")
    }

    @Test func nanAndInfiniteDatesAreErrorsWithTheirLine() {
        for bad in ["NaN", "inf", "-Infinity", "1e300"] {
            let csv =
                "url,username,password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged\n"
                +
                // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
                "https://a.example.com,jo,pw,,,{00000000-0000-4000-8000-000000000001},1600000000000,1600000000000,1600000000000\n"
                // END DATA TABLE
                +
                // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
                "https://b.example.com,jo,pw,,,{00000000-0000-4000-8000-000000000002},\(bad),1600000000000,1600000000000\n"
                // END DATA TABLE
            #expect(throws: VaultError.self) { try Importer.read(data: Data(csv.utf8), file: "ff.csv") }
            do { _ = try Importer.read(data: Data(csv.utf8), file: "ff.csv") } catch let e as VaultError {
                #expect(e.line == 3 && e.file == "ff.csv" && e.message.contains("NaN, infinite or out of range"))
            } catch {}
        }
    }

    @Test func damagedKeePassXMLIsAnErrorWithItsLine() {
        let xml =
            // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
            "<?xml version=\"1.0\"?>\n<KeePassFile>\n<Root>\n<Group><Name>R</Name>\n<Entry><String><Key>Title</Key><Value>x</Value></String>\n"
            // END DATA TABLE
        do {
            _ = try Importer.read(data: Data(xml.utf8), file: "kp.xml")
            Issue.record("a truncated XML imported")
        } catch let e as VaultError {
            #expect(e.file == "kp.xml" && (e.line ?? 0) >= 5)
        } catch { Issue.record("\(error)") }
        #expect(throws: VaultError.self) { try Importer.read(data: Data("<KeePassFile><Meta/></KeePassFile>".utf8)) }
    }

    @Test func isoDatesParseLikeFoundation() throws {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // (Foundation switches to the Julian calendar before 1582; ISODate is proleptic Gregorian, as KeePass is)
        for s in [
            "2023-01-02T03:04:05.678Z", "1999-12-31T23:59:59.000Z", "2024-02-29T12:00:00.5Z", "1600-03-01T00:00:00.000Z"
        ] {
            #expect(ISODate.parse(s) == f.date(from: s), "\(s)")
        }
        #expect(ISODate.parse("2023-01-02T03:04:05+02:00") == ISODate.parse("2023-01-02T01:04:05Z"))
        #expect(ISODate.parse("2023-01-02 03:04:05") == ISODate.parse("2023-01-02T03:04:05Z"))
        for bad in ["2023-02-30T00:00:00Z", "2023-13-01", "2023-01-01T24:00:00Z", "NaN", "2023-01-01Tx", ""] {
            #expect(ISODate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func tenThousandItemBitwardenJSONImportWithDates() throws {
        var items: [[String: Any]] = []
        for k in 0..<10_000 {
            items.append(["id": UUID().uuidString, "type": 1, "name": "Site \(k)", "notes": "n\(k)",
                "login": ["username": "u\(k)", "password": "p\(k)", "uris": [["uri": "https://s\(k).example.com"]]],
                          "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2023-05-06T07:08:09.123Z"])
        }
        let data = try JSONSerialization.data(withJSONObject: ["encrypted": false, "items": items])
        // Its speed is a benchmark (Benchmarks/vault/import_10k.sh), not a timed test.
        let r = try Importer.read(data: data)
        #expect(r.items.count == 10_000)
        #expect(r.items.last?.modified == ISODate.parse("2023-05-06T07:08:09.123Z"))
    }
}

@Suite struct LastPassImportTests {
    @Test func lastPassCSVKeepsFoldersNotesTOTPAndFavourite() throws {
        let csv = "url,username,password,totp,extra,name,grouping,fav\r\n" +
            // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
            "https://mail.example.com,jo@example.com,lp-Pass-1,JBSWY3DPEHPK3PXP,\"two\r\nlines\",Mail,Personal\\Email,1\r\n"
            // END DATA TABLE
            +
            "http://sn,,,,\"NoteType:Server\nHostname:db1\",Server note,Work,0\r\n"
        let r = try Importer.read(data: Data(csv.utf8))
        #expect(r.format == .lastPassCSV)
        #expect(r.items.count == 2)
        let mail = try #require(r.items.first { $0.title == "Mail" })
        #expect(mail.kind == .entry && mail.password.reveal == "lp-Pass-1" && mail.folder == "Personal/Email")
        #expect(mail.details.reveal == "two\r\nlines")
        let note = try #require(r.items.first { $0.title == "Server note" })
        #expect(note.kind == .note && note.text.reveal == "NoteType:Server\nHostname:db1" && note.folder == "Work")
        #expect(mail.totp.reveal == "JBSWY3DPEHPK3PXP" && mail.favorite && !note.favorite)
        #expect(r.notKept.isEmpty, "LastPass CSV carries nothing the vault cannot keep")
    }
}
