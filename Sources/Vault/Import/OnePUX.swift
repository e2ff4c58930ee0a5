#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONLines
import ZipArchive

/// 1Password's 1PUX export: a zip holding `export.data`, JSON of
/// `accounts[].vaults[].items[]` (docs/vault-import.md, "1Password 1PUX").
enum OnePUX {
    /// Zip files start with "PK\u{3}\u{4}": every zip is read as a 1PUX (the only zip
    /// export Dossier knows), so a zip without `export.data` gets a message saying so.
    static func isZip(_ data: Data) -> Bool { data.starts(with: [0x50, 0x4B, 0x03, 0x04]) }

    static let categories = [
        "001": "login", "002": "credit card", "003": "secure note", "004": "identity", "005": "password",
        "006": "document", "100": "software licence", "101": "bank account", "102": "database",
        "103": "driver licence", "104": "outdoor licence", "105": "membership", "106": "passport",
        "107": "reward program", "108": "social security number", "109": "wireless router",
        "110": "server", "111": "email account", "112": "API credential", "113": "medical record",
        "114": "SSH key", "115": "crypto wallet"
    ]

    static func read(_ data: Data, file: String?, now: Date) throws -> ImportResult {
        let zip: ZipReader
        do { zip = try ZipReader([UInt8](data)) } catch {
            throw VaultError(
                .corrupt,
                "a zip file that cannot be opened (\(error)): export it from 1Password again "
                    + "(File › Export, format 1PUX)", file: file)
        }
        guard let entry = zip["export.data"] else {
            throw VaultError(
                .invalidInput,
                "a zip file without export.data: not a 1Password 1PUX export. Export it from "
                    + "1Password again (File › Export, format 1PUX) and import the .1pux file as it is, not unpacked "
                    + "and re-zipped",
                file: file)
        }
        guard entry.size <= 1 << 30 else {
            throw VaultError(.invalidInput, "export.data is over 1 GiB", file: file)
        }
        let json: Data
        do { json = Data(try zip.contents(of: entry)) } catch {
            throw VaultError(.corrupt, "the 1PUX zip is damaged (export.data cannot be extracted)", file: file)
        }
        guard let root = try? JSONReader.document(json, file: "export.data", integers: true),
            root["accounts"]?.items?.allSatisfy({ $0.members != nil }) == true
        else {
            throw VaultError(.invalidInput, "export.data is not 1PUX JSON (no accounts list)", file: file)
        }
        var result = ImportResult(format: .onePUX, items: [], skipped: [:], warnings: [])
        for account in root.objects("accounts") {
            for vault in account.objects("vaults") {
                let folder = vault.object("attrs")?.text("name") ?? ""
                for raw in vault.objects("items") {
                    let state = raw.text("state") ?? "active"
                    if state != "active" { result.skipped[state, default: 0] += 1; continue }
                    guard let item = item(raw, folder: folder, now: now, into: &result) else { continue }
                    result.items.append(item)
                }
            }
        }
        return result
    }

    /// One active item; nil (counted as skipped) for categories the vault cannot hold.
    static func item(_ raw: JNode, folder: String, now: Date, into result: inout ImportResult) -> VaultItem? {
        let category = raw.text("categoryUuid") ?? ""
        let none = JNode.object([], line: 0)
        let overview = raw.object("overview") ?? none
        let details = raw.object("details") ?? none
        let title = overview.text("title") ?? ""
        let notes = details.text("notesPlain") ?? ""
        let created = raw["createdAt"]?.looseDouble.flatMap(unixDate)
        let modified = raw["updatedAt"]?.looseDouble.flatMap(unixDate)
        var item: VaultItem
        var fields: [CustomField] = []
        switch category {
        case "001", "005":
            var user = "", pass = details.text("password") ?? ""
            for f in details.objects("loginFields") {
                let value = f.text("value") ?? ""
                switch f.text("designation") {
                case "username": user = value
                case "password": pass = value
                default:
                    // web-form fields: type "P" is a password field
                    let name = f.text("name").flatMap { $0.isEmpty ? nil : $0 } ?? (f.text("id") ?? "")
                    fields.append(
                        CustomField(name: name, value: Secret(value), hidden: f.text("fieldType") == "P"))
                }
            }
            let urls = Importer.unique(
                [overview.text("url") ?? ""] + overview.objects("urls").compactMap { $0.text("url") })
            item = Importer.entry(title: title, username: user, password: pass, website: urls.first ?? "", notes: notes,
                                  folder: folder, created: created, modified: modified, now: now)
            item.uris = Array(urls.dropFirst())
            item.history = details.objects("passwordHistory").compactMap { h in
                guard let p = h.text("value"), !p.isEmpty else { return nil }
                return PasswordHistoryEntry(
                    password: Secret(p), changed: h["time"]?.looseDouble.flatMap(unixDate) ?? item.modified)
            }
            item.history.sort { $0.changed < $1.changed }
        case "003":
            item = Importer.note(
                title: title, text: notes, folder: folder, created: created, modified: modified, now: now)
        default:
            result.skipped[categories[category] ?? "category \(category)", default: 0] += 1
            return nil
        }
        for section in details.objects("sections") {
            for field in section.objects("fields") {
                let name = field.text("title") ?? ""
                guard let first = field.object("value")?.members?.first else { continue }
                let (kind, v) = (first.key, first.value)
                switch kind {
                case "totp" where item.totp.isEmpty && item.kind == .entry: item.totp = Secret(text(v))
                case "file":
                    result.attachment(v.text("fileName") ?? "", of: title)
                default:
                    fields.append(
                        CustomField(name: name, value: Secret(text(v)), hidden: kind == "concealed" || kind == "totp"))
                }
            }
        }
        item.fields = fields
        let tags = overview["tags"]?.items ?? []
        item.tags = Importer.unique(tags.allSatisfy { $0.stringValue != nil } ? tags.compactMap(\.stringValue) : [])
        item.favorite = (raw["favIndex"]?.looseInt ?? 0) > 0
        if let doc = details.object("documentAttributes") {
            result.attachment(doc.text("fileName") ?? "", of: title)
        }
        result.notKeep("passkey", details["passkey"] != nil ? 1 : 0)
        return item
    }

    /// A section field's value as text: strings as they are, numbers and booleans as
    /// ``JNode/numberText``, anything structured (addresses, month-year, …) as compact
    /// JSON with keys in byte order (``JSONOut``), null as nothing.
    static func text(_ v: JNode) -> String {
        if let s = v.stringValue { return s }
        if let n = v.numberText { return n }
        if v.members != nil || v.items != nil { return String(decoding: JSONOut(v).written(), as: UTF8.self) }
        return ""
    }

    /// Seconds since 1970; NaN, infinite or beyond year 9999 is not a date.
    static func unixDate(_ s: Double) -> Date? {
        guard s.isFinite, abs(s) <= 253_402_300_799 else { return nil }
        return Date(timeIntervalSince1970: s)
    }
}
