import Foundation

// MARK: - Bitwarden JSON

/// Bitwarden's unencrypted JSON export (docs/vault-import.md, "Field mapping").
enum BitwardenJSON {
    /// Custom field `type`s: 0 text, 1 hidden, 2 boolean, 3 linked (a pointer to another
    /// field of the item, which the vault cannot express: counted as not kept).
    static func fields(_ list: [[String: Any]], into result: inout ImportResult) -> [CustomField] {
        var out: [CustomField] = []
        for f in list {
            let name = f["name"] as? String ?? ""
            let value: String
            switch f["value"] {
            case let s as String: value = s
            // Bitwarden writes "true"/"false"
            case let b as Bool where f["type"] as? Int == 2: value = b ? "true" : "false"
            case let n as NSNumber: value = n.stringValue
            default: value = ""
            }
            switch f["type"] as? Int ?? 0 {
            case 3: result.notKeep("linked field")
            case let t: out.append(CustomField(name: name, value: Secret(value), hidden: t == 1))
            }
        }
        return out
    }

    static func read(_ data: Data, file: String?, now: Date) throws -> ImportResult {
        guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let items = obj["items"] as? [[String: Any]]
        else {
            throw VaultError(.invalidInput, "Bitwarden JSON without an items list", file: file)
        }
        var folders: [String: String] = [:]
        for f in obj["folders"] as? [[String: Any]] ?? [] {
            if let id = f["id"] as? String { folders[id] = f["name"] as? String ?? "" }
        }
        var result = ImportResult(format: .bitwardenJSON, items: [], skipped: [:], warnings: [])
        let typeNames = [3: "card", 4: "identity", 5: "ssh key"]
        for (k, it) in items.enumerated() {
            let type = it["type"] as? Int ?? 0
            let name = it["name"] as? String ?? ""
            let notes = it["notes"] as? String ?? ""
            let folder = (it["folderId"] as? String).flatMap { folders[$0] } ?? ""
            let created = Importer.date(it["creationDate"] as? String)
            let modified = Importer.date(it["revisionDate"] as? String)
            let id = (it["id"] as? String).flatMap(UUID.init(uuidString:))
            var item: VaultItem
            switch type {
            case 1:
                let login = it["login"] as? [String: Any] ?? [:]
                let uris = Importer.unique(
                    (login["uris"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String })
                item = Importer.entry(title: name, username: login["username"] as? String ?? "",
                    password: login["password"] as? String ?? "", website: uris.first ?? "", notes: notes,
                                      folder: folder, created: created, modified: modified, now: now, id: id)
                item.uris = Array(uris.dropFirst())
                item.totp = Secret(login["totp"] as? String ?? "")
                if let changed = Importer.date(login["passwordRevisionDate"] as? String) {
                    item.passwordChanged = changed.wholeMilliseconds
                }
                item.history = (it["passwordHistory"] as? [[String: Any]] ?? []).compactMap { h in
                    guard let p = h["password"] as? String, !p.isEmpty else { return nil }
                    return PasswordHistoryEntry(
                        password: Secret(p), changed: Importer.date(h["lastUsedDate"] as? String) ?? item.modified)
                }
                item.history.sort { $0.changed < $1.changed }   // Bitwarden lists the newest first
                result.notKeep("passkey", (login["fido2Credentials"] as? [Any])?.count ?? 0)
            case 2:
                item = Importer.note(
                    title: name, text: notes, folder: folder, created: created, modified: modified, now: now, id: id)
            default:
                result.skipped[typeNames[type] ?? "type \(type)", default: 0] += 1
                if typeNames[type] == nil {
                    result.warnings.append(
                        VaultError(.unsupported, "item \(k + 1) has unknown type \(type)", file: file))
                }
                continue
            }
            item.fields = fields(it["fields"] as? [[String: Any]] ?? [], into: &result)
            item.favorite = it["favorite"] as? Bool ?? false
            item.reprompt = (it["reprompt"] as? Int ?? 0) != 0
            for a in it["attachments"] as? [[String: Any]] ?? [] {
                result.attachment(a["fileName"] as? String ?? "", of: item.title)
            }
            result.items.append(item)
        }
        return result
    }
}
