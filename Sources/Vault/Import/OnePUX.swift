import Foundation
import ZIPFoundation

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
        guard let zip = try? Archive(data: data, accessMode: .read, pathEncoding: nil) else {
            throw VaultError(
                .corrupt,
                "a zip file that cannot be opened (damaged or cut short): export it from 1Password again "
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
        guard entry.uncompressedSize <= 1 << 30 else {
            throw VaultError(.invalidInput, "export.data is over 1 GiB", file: file)
        }
        var json = Data()
        do { _ = try zip.extract(entry, skipCRC32: false) { json.append($0) } } catch {
            throw VaultError(.corrupt, "the 1PUX zip is damaged (export.data cannot be extracted)", file: file)
        }
        guard let root = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
            let accounts = root["accounts"] as? [[String: Any]]
        else {
            throw VaultError(.invalidInput, "export.data is not 1PUX JSON (no accounts list)", file: file)
        }
        var result = ImportResult(format: .onePUX, items: [], skipped: [:], warnings: [])
        for account in accounts {
            for vault in account["vaults"] as? [[String: Any]] ?? [] {
                let folder = (vault["attrs"] as? [String: Any])?["name"] as? String ?? ""
                for raw in vault["items"] as? [[String: Any]] ?? [] {
                    let state = raw["state"] as? String ?? "active"
                    if state != "active" { result.skipped[state, default: 0] += 1; continue }
                    guard let item = item(raw, folder: folder, now: now, into: &result) else { continue }
                    result.items.append(item)
                }
            }
        }
        return result
    }

    /// One active item; nil (counted as skipped) for categories the vault cannot hold.
    static func item(_ raw: [String: Any], folder: String, now: Date, into result: inout ImportResult) -> VaultItem? {
        let category = raw["categoryUuid"] as? String ?? ""
        let overview = raw["overview"] as? [String: Any] ?? [:]
        let details = raw["details"] as? [String: Any] ?? [:]
        let title = overview["title"] as? String ?? ""
        let notes = details["notesPlain"] as? String ?? ""
        let created = (raw["createdAt"] as? Double).flatMap(unixDate)
        let modified = (raw["updatedAt"] as? Double).flatMap(unixDate)
        var item: VaultItem
        var fields: [CustomField] = []
        switch category {
        case "001", "005":
            var user = "", pass = details["password"] as? String ?? ""
            for f in details["loginFields"] as? [[String: Any]] ?? [] {
                let value = f["value"] as? String ?? ""
                switch f["designation"] as? String {
                case "username": user = value
                case "password": pass = value
                default:
                    // web-form fields: type "P" is a password field
                    let name = (f["name"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? (f["id"] as? String ?? "")
                    fields.append(
                        CustomField(name: name, value: Secret(value), hidden: f["fieldType"] as? String == "P"))
                }
            }
            let urls = Importer.unique(
                [overview["url"] as? String ?? ""]
                    + (overview["urls"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String })
            item = Importer.entry(title: title, username: user, password: pass, website: urls.first ?? "", notes: notes,
                                  folder: folder, created: created, modified: modified, now: now)
            item.uris = Array(urls.dropFirst())
            item.history = (details["passwordHistory"] as? [[String: Any]] ?? []).compactMap { h in
                guard let p = h["value"] as? String, !p.isEmpty else { return nil }
                return PasswordHistoryEntry(
                    password: Secret(p), changed: (h["time"] as? Double).flatMap(unixDate) ?? item.modified)
            }
            item.history.sort { $0.changed < $1.changed }
        case "003":
            item = Importer.note(
                title: title, text: notes, folder: folder, created: created, modified: modified, now: now)
        default:
            result.skipped[categories[category] ?? "category \(category)", default: 0] += 1
            return nil
        }
        for section in details["sections"] as? [[String: Any]] ?? [] {
            for field in section["fields"] as? [[String: Any]] ?? [] {
                let name = field["title"] as? String ?? ""
                guard let (kind, v) = (field["value"] as? [String: Any])?.first else { continue }
                switch kind {
                case "totp" where item.totp.isEmpty && item.kind == .entry: item.totp = Secret(text(v))
                case "file":
                    let file = v as? [String: Any] ?? [:]
                    result.attachment(file["fileName"] as? String ?? "", of: title)
                default:
                    fields.append(
                        CustomField(name: name, value: Secret(text(v)), hidden: kind == "concealed" || kind == "totp"))
                }
            }
        }
        item.fields = fields
        item.tags = Importer.unique(overview["tags"] as? [String] ?? [])
        item.favorite = (raw["favIndex"] as? Int ?? 0) > 0
        if let doc = details["documentAttributes"] as? [String: Any] {
            result.attachment(doc["fileName"] as? String ?? "", of: title)
        }
        result.notKeep("passkey", details["passkey"] != nil ? 1 : 0)
        return item
    }

    /// A section field's value as text: strings as they are, numbers in decimal, anything
    /// structured (addresses, month-year, …) as compact JSON with sorted keys.
    static func text(_ v: Any) -> String {
        switch v {
        case let s as String: return s
        case let n as NSNumber: return n.stringValue
        default:
            guard JSONSerialization.isValidJSONObject(v),
                let d = try? JSONSerialization.data(withJSONObject: v, options: [.sortedKeys, .withoutEscapingSlashes])
            else { return "" }
            return String(decoding: d, as: UTF8.self)
        }
    }

    /// Seconds since 1970; NaN, infinite or beyond year 9999 is not a date.
    static func unixDate(_ s: Double) -> Date? {
        guard s.isFinite, abs(s) <= 253_402_300_799 else { return nil }
        return Date(timeIntervalSince1970: s)
    }
}
