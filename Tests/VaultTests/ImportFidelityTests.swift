import Foundation
import JSONLines
import Testing
@testable import Vault

/// Every importer keeps what its format carries in the item model (TOTP, custom and
/// hidden fields, extra URIs, history, tags, expiry, folders, flags) and lists what it
/// cannot keep, by kind and count, with attachments named (docs/vault-import.md).
@Suite struct ImportFidelityTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func read(_ text: String) throws -> ImportResult { try Importer.read(data: Data(text.utf8), now: Self.now) }
    func iso(_ s: String) -> Date { ISODate.parse(s)! }

    @Test func bitwardenJSONKeepsEveryField() throws {
        let r = try read("""
        {"encrypted": false, "folders": [{"id": "f1", "name": "Work/Mail"}],
         "items": [{"id": "0f8e1a52-2d4b-4a3e-9c1d-7a0b3c4d5e01", "type": 1, "name": "Mail", "folderId": "f1", \
        "favorite": true, "reprompt": 1,
           "notes": "n", "creationDate": "2024-01-02T03:04:05.678Z", "revisionDate": "2024-02-03T04:05:06.789Z",
           "fields": [{"name": "PIN", "value": "bw-hidden", "type": 1}, {"name": "Plan", "value": "gold", "type": 0},
                      {"name": "On", "value": "true", "type": 2}, {"name": "L", "value": null, "type": 3, "linkedId": \
        100}],
           "passwordHistory": [{"lastUsedDate": "2024-01-20T00:00:00.000Z", "password": "bw-old-2"},
                               {"lastUsedDate": "2023-01-20T00:00:00.000Z", "password": "bw-old-1"}],
           "attachments": [{"fileName": "scan.pdf"}],
           "login": {"username": "jo", "password": "bw-now", "totp": "otpauth://totp/x?secret=BWTOTP", \
        "passwordRevisionDate": "2024-01-20T00:00:00.000Z",
                     "uris": [{"uri": "https://mail.example.com"}, {"uri": "https://webmail.example.com"}], \
        "fido2Credentials": [{"x": 1}]}},
          {"id": "0f8e1a52-2d4b-4a3e-9c1d-7a0b3c4d5e02", "type": 2, "name": "Note", "notes": "t", "fields": [{"name": \
        "k", "value": "v", "type": 0}]}]}
        """)
        let mail = try #require(r.items.first { $0.title == "Mail" })
        #expect(mail.totp.reveal == "otpauth://totp/x?secret=BWTOTP")
        #expect(mail.website == "https://mail.example.com" && mail.uris == ["https://webmail.example.com"])
        #expect(
            mail.fields == [
                CustomField(name: "PIN", value: "bw-hidden", hidden: true), CustomField(name: "Plan", value: "gold"),
                CustomField(name: "On", value: "true")
            ])
        #expect(mail.history.map(\.password.reveal) == ["bw-old-1", "bw-old-2"])
        #expect(mail.history.map(\.changed) == [iso("2023-01-20T00:00:00Z"), iso("2024-01-20T00:00:00Z")])
        #expect(mail.passwordChanged == iso("2024-01-20T00:00:00Z"))
        #expect(mail.folder == "Work/Mail" && mail.favorite && mail.reprompt && !mail.excludeFromReports)
        #expect(try #require(r.items.first { $0.title == "Note" }).fields == [CustomField(name: "k", value: "v")])
        #expect(r.notKept == ["attachment": 1, "linked field": 1, "passkey": 1])
        #expect(r.attachments == ["Mail / scan.pdf"])
    }

    @Test func bitwardenCSVKeepsTOTPFieldsURIsAndFlags() throws {
        let r = try read("""
        folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
        Work,1,login,Mail,,"PIN: 1234
        Plan: gold",1,"https://a.example.com,https://b.example.com",jo,csv-pw,CSVTOTP
        ,,note,Wifi,key,,0,,,,
        """)
        let mail = try #require(r.items.first { $0.title == "Mail" })
        #expect(
            mail.totp.reveal == "CSVTOTP" && mail.website == "https://a.example.com"
                && mail.uris == ["https://b.example.com"])
        #expect(mail.fields == [CustomField(name: "PIN", value: "1234"), CustomField(name: "Plan", value: "gold")])
        #expect(mail.favorite && mail.reprompt && mail.folder == "Work")
        #expect(try #require(r.items.first { $0.title == "Wifi" }).favorite == false)
    }

    // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
    static let keepassXML = """
    <?xml version="1.0" encoding="utf-8"?>
    <KeePassFile><Meta><RecycleBinUUID>AAAAAAAAAAAAAAAAAAAAAA==</RecycleBinUUID></Meta><Root>
    <Group><UUID>AQAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Root</Name>
     <Group><UUID>AgAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Net</Name>
      <Entry><UUID>AwAAAAAAAAAAAAAAAAAAAA==</UUID><Tags>work;net, vpn</Tags><QualityCheck>False</QualityCheck>
       <Times><CreationTime>2020-01-01T00:00:00Z</CreationTime><LastModificationTime>2024-01-01T00:00:00Z</LastModificationTime>
        <ExpiryTime>2030-01-02T03:04:05Z</ExpiryTime><Expires>True</Expires></Times>
       <String><Key>Title</Key><Value>VPN</Value></String><String><Key>UserName</Key><Value>jo</Value></String>
       <String><Key>Password</Key><Value ProtectInMemory="True">kx-now</Value></String>
       <String><Key>URL</Key><Value>https://vpn.example.org</Value></String>
       <String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/v?secret=KXTOTP</Value></String>
       <String><Key>PIN</Key><Value ProtectInMemory="True">kx-hidden</Value></String>
       <String><Key>Plan</Key><Value>gold</Value></String>
       <String><Key>KP2A_URL</Key><Value>https://vpn2.example.org</Value></String>
       <String><Key>KP2A_URL_1</Key><Value>https://vpn3.example.org</Value></String>
       <Binary><Key>cert.pem</Key><Value Ref="0"/></Binary>
       <CustomData><Item><Key>Dossier.Favorite</Key><Value>true</Value></Item><Item><Key>KPXC_BROWSER_x</Key><Value>1</Value></Item></CustomData>
       <History>
        <Entry><UUID>AwAAAAAAAAAAAAAAAAAAAA==</UUID><Times><LastModificationTime>2022-01-01T00:00:00Z</LastModificationTime></Times>
         <String><Key>Password</Key><Value>kx-old-1</Value></String></Entry>
        <Entry><UUID>AwAAAAAAAAAAAAAAAAAAAA==</UUID><Times><LastModificationTime>2023-01-01T00:00:00Z</LastModificationTime></Times>
         <String><Key>Password</Key><Value>kx-old-2</Value></String></Entry>
        <Entry><UUID>AwAAAAAAAAAAAAAAAAAAAA==</UUID><Times><LastModificationTime>2023-06-01T00:00:00Z</LastModificationTime></Times>
         <String><Key>Password</Key><Value>kx-old-2</Value></String></Entry>
       </History>
      </Entry>
      <Entry><UUID>BAAAAAAAAAAAAAAAAAAAAA==</UUID>
       <String><Key>Title</Key><Value>Legacy TOTP</Value></String>
       <String><Key>TimeOtp-Secret-Base32</Key><Value>KPTOTP</Value></String>
       <CustomData><Item><Key>KnownBad</Key><Value>true</Value></Item></CustomData>
      </Entry>
     </Group>
    </Group></Root></KeePassFile>
    """
    // END DATA TABLE

    @Test func keepassXMLKeepsEveryField() throws {
        let r = try read(Self.keepassXML)
        let vpn = try #require(r.items.first { $0.title == "VPN" })
        #expect(vpn.folder == "Net", "no Root/ prefix")
        #expect(vpn.totp.reveal == "otpauth://totp/v?secret=KXTOTP")
        #expect(
            vpn.fields == [
                CustomField(name: "PIN", value: "kx-hidden", hidden: true), CustomField(name: "Plan", value: "gold")
            ])
        #expect(vpn.uris == ["https://vpn2.example.org", "https://vpn3.example.org"])
        #expect(vpn.tags == ["work", "net", "vpn"])
        #expect(vpn.expires == iso("2030-01-02T03:04:05Z"))
        #expect(vpn.history.map(\.password.reveal) == ["kx-old-1", "kx-old-2"])
        #expect(vpn.history.map(\.changed) == [iso("2022-01-01T00:00:00Z"), iso("2023-01-01T00:00:00Z")])
        #expect(vpn.excludeFromReports && vpn.favorite && !vpn.reprompt)
        let legacy = try #require(r.items.first { $0.title == "Legacy TOTP" })
        #expect(legacy.totp.reveal == "KPTOTP" && legacy.fields.isEmpty && legacy.excludeFromReports)
        #expect(
            r.notKept == ["attachment": 1, "entry custom data item": 1, "history version (only its password kept)": 3])
        #expect(r.attachments == ["VPN / cert.pem"])
    }

    @Test func keepassxcCSVKeepsTOTPAndLeavesOutTheRootGroup() throws {
        let r = try read("""
        "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
        "Passwords/Games","Steam","jo","p","https://s.example.com","","otpauth://totp/s?secret=SX","0","",""
        "Passwords","Top","jo","p","","","","0","",""
        """)
        #expect(try #require(r.items.first { $0.title == "Steam" }).folder == "Games")
        #expect(try #require(r.items.first { $0.title == "Steam" }).totp.reveal == "otpauth://totp/s?secret=SX")
        #expect(try #require(r.items.first { $0.title == "Top" }).folder == "")
    }

    @Test func onePasswordCSVKeepsTOTPTagsAndFavourite() throws {
        let r = try read("""
        Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes
        Cloud,https://cloud.example.com,jo,op-pw,otpauth://totp/c?secret=OPT,true,false,"home,work",
        """)
        let c = try #require(r.items.first)
        #expect(
            c.totp.reveal == "otpauth://totp/c?secret=OPT" && c.tags == ["home", "work"] && c.favorite && c.folder == ""
        )
    }

    @Test func lastPassKeepsTOTPAndFavourite() throws {
        let r = try read("""
        url,username,password,totp,extra,name,grouping,fav
        https://x.example.com,jo,lp-pw,LPTOTP,,X,Shop\\Online,1
        """)
        let x = try #require(r.items.first)
        #expect(x.totp.reveal == "LPTOTP" && x.favorite && x.folder == "Shop/Online")
        #expect(r.notKept.isEmpty)
    }

    @Test func onePUXKeepsEveryField() throws {
        var result = ImportResult(format: .onePUX, items: [], skipped: [:], warnings: [])
        let raw: [String: Any] = [
            "categoryUuid": "001", "favIndex": 1, "createdAt": 1_600_000_000.0, "updatedAt": 1_700_000_000.0,
            "overview": ["title": "Bank", "url": "https://bank.example.com", "tags": ["money", "money", "home"],
                         "urls": [["url": "https://bank.example.com"], ["url": "https://app.bank.example.com"]]],
            "details": [
                "loginFields": [
                    ["designation": "username", "value": "jo"], ["designation": "password", "value": "op-now"],
                    ["name": "pin", "fieldType": "P", "value": "op-hidden"]
                ],
                "passwordHistory": [["value": "op-old", "time": 1_650_000_000.0]],
                "documentAttributes": ["fileName": "statement.pdf"],
                "sections": [["fields": [["title": "one-time", "value": ["totp": "otpauth://totp/b?secret=OPX"]],
                                         ["title": "answer", "value": ["concealed": "op-concealed"]],
                                         ["title": "branch", "value": ["string": "Main St"]],
                                         ["title": "scan", "value": ["file": ["fileName": "id.png"]]]]]],
            ] as [String: Any],
        ]
        let node = try JSONReader.document(JSONSerialization.data(withJSONObject: raw), file: "t", integers: true)
        let bank = try #require(OnePUX.item(node, folder: "Private", now: Self.now, into: &result))
        #expect(bank.totp.reveal == "otpauth://totp/b?secret=OPX")
        #expect(bank.uris == ["https://app.bank.example.com"] && bank.website == "https://bank.example.com")
        #expect(
            bank.fields == [
                CustomField(name: "pin", value: "op-hidden", hidden: true),
                CustomField(name: "answer", value: "op-concealed", hidden: true),
                CustomField(name: "branch", value: "Main St")
            ])
        #expect(
            bank.history == [
                PasswordHistoryEntry(password: "op-old", changed: Date(timeIntervalSince1970: 1_650_000_000))
            ])
        #expect(bank.tags == ["money", "home"] && bank.favorite && bank.folder == "Private")
        #expect(result.attachments == ["Bank / id.png", "Bank / statement.pdf"] && result.notKept == ["attachment": 2])
    }
}
