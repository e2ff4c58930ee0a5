import Foundation
import ZIPFoundation

/// 1Password's 1PUX export: a zip holding `export.data`, JSON of
/// `accounts[].vaults[].items[]` (docs/vault-import.md, "1Password 1PUX").
enum OnePUX {
    /// Zip files start with "PK\u{3}\u{4}"; a 1PUX holds `export.data`.
    static func isOnePUX(_ data: Data) -> Bool {
        guard data.starts(with: [0x50, 0x4B, 0x03, 0x04]), let zip = try? Archive(data: data, accessMode: .read) else { return false }
        return zip["export.data"] != nil
    }

    static let categories = ["001": "login", "002": "credit card", "003": "secure note", "004": "identity", "005": "password",
                             "006": "document", "100": "software licence", "101": "bank account", "102": "database",
                             "103": "driver licence", "104": "outdoor licence", "105": "membership", "106": "passport",
                             "107": "reward program", "108": "social security number", "109": "wireless router",
                             "110": "server", "111": "email account", "112": "API credential", "113": "medical record",
                             "114": "SSH key", "115": "crypto wallet"]

    static func read(_ data: Data, file: String?, now: Date) throws -> ImportResult {
        guard let zip = try? Archive(data: data, accessMode: .read), let entry = zip["export.data"] else {
            throw VaultError(.invalidInput, "not a 1Password 1PUX export (a zip with export.data)", file: file)
        }
        guard entry.uncompressedSize <= 1 << 30 else { throw VaultError(.invalidInput, "export.data is over 1 GiB", file: file) }
        var json = Data()
        do { _ = try zip.extract(entry, skipCRC32: false) { json.append($0) } } catch {
            throw VaultError(.corrupt, "the 1PUX zip is damaged (export.data cannot be extracted)", file: file)
        }
        guard let root = try? JSONSerialization.jsonObject(with: json) as? [String: Any], let accounts = root["accounts"] as? [[String: Any]] else {
            throw VaultError(.invalidInput, "export.data is not 1PUX JSON (no accounts list)", file: file)
        }
        var result = ImportResult(format: .onePUX, items: [], skipped: [:], warnings: [])
        func count(_ kind: String, _ n: Int = 1) { if n > 0 { result.notKept[kind, default: 0] += n } }
        for account in accounts {
            for vault in account["vaults"] as? [[String: Any]] ?? [] {
                let folder = (vault["attrs"] as? [String: Any])?["name"] as? String ?? ""
                for item in vault["items"] as? [[String: Any]] ?? [] {
                    let state = item["state"] as? String ?? "active"
                    if state != "active" { result.skipped[state, default: 0] += 1; continue }
                    let category = item["categoryUuid"] as? String ?? ""
                    let overview = item["overview"] as? [String: Any] ?? [:]
                    let details = item["details"] as? [String: Any] ?? [:]
                    let title = overview["title"] as? String ?? ""
                    let notes = details["notesPlain"] as? String ?? ""
                    let created = (item["createdAt"] as? Double).flatMap(unixDate)
                    let modified = (item["updatedAt"] as? Double).flatMap(unixDate)
                    switch category {
                    case "001", "005":
                        var user = "", pass = details["password"] as? String ?? ""
                        for f in details["loginFields"] as? [[String: Any]] ?? [] {
                            switch f["designation"] as? String {
                            case "username": user = f["value"] as? String ?? ""
                            case "password": pass = f["value"] as? String ?? ""
                            default: count("custom field")
                            }
                        }
                        let urls = overview["urls"] as? [[String: Any]] ?? []
                        let url = overview["url"] as? String ?? (urls.first?["url"] as? String ?? "")
                        count("extra URL", max(0, urls.count - 1))
                        result.items.append(Importer.entry(title: title, username: user, password: pass, website: url, notes: notes,
                                                           folder: folder, created: created, modified: modified, now: now))
                    case "003":
                        result.items.append(Importer.note(title: title, text: notes, folder: folder, created: created, modified: modified, now: now))
                    default:
                        result.skipped[categories[category] ?? "category \(category)", default: 0] += 1
                        continue
                    }
                    for section in details["sections"] as? [[String: Any]] ?? [] {
                        for field in section["fields"] as? [[String: Any]] ?? [] {
                            let value = field["value"] as? [String: Any] ?? [:]
                            count(value["totp"] != nil ? "TOTP secret" : "custom field")
                        }
                    }
                    count("password history version", (details["passwordHistory"] as? [Any])?.count ?? 0)
                    count("tags", (overview["tags"] as? [Any])?.isEmpty == false ? 1 : 0)
                    count("favourite flag", (item["favIndex"] as? Int ?? 0) > 0 ? 1 : 0)
                    count("attachment", details["documentAttributes"] != nil ? 1 : 0)
                }
            }
        }
        return result
    }

    /// Seconds since 1970; NaN, infinite or beyond year 9999 is not a date.
    static func unixDate(_ s: Double) -> Date? {
        guard s.isFinite, abs(s) <= 253_402_300_799 else { return nil }
        return Date(timeIntervalSince1970: s)
    }
}
