#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONLines

// MARK: - Bitwarden JSON

/// Bitwarden's unencrypted JSON export (docs/vault-import.md, "Field mapping").
enum BitwardenJSON {
    /// Custom field `type`s: 0 text, 1 hidden, 2 boolean, 3 linked (a pointer to another
    /// field of the item, which the vault cannot express: counted as not kept).
    static func fields(_ list: [JNode], into result: inout ImportResult) -> [CustomField] {
        var out: [CustomField] = []
        for f in list {
            let name = f.text("name") ?? ""
            let value: String
            let type = f["type"]?.looseInt
            if let s = f.text("value") {
                value = s
            } else if type == 2, let b = f["value"]?.looseBool {
                value = b ? "true" : "false"   // Bitwarden writes "true"/"false"
            } else {
                value = f["value"]?.numberText ?? ""
            }
            switch type ?? 0 {
            case 3: result.notKeep("linked field")
            case let t: out.append(CustomField(name: name, value: Secret(value), hidden: t == 1))
            }
        }
        return out
    }

    static func read(_ data: Data, file: String?, now: Date) throws -> ImportResult {
        guard let obj = try? JSONReader.document(data, file: file ?? "JSON", integers: true),
            obj["items"]?.items?.allSatisfy({ $0.members != nil }) == true
        else {
            throw VaultError(.invalidInput, "Bitwarden JSON without an items list", file: file)
        }
        var folders: [String: String] = [:]
        let items = obj.objects("items")
        for f in obj.objects("folders") {
            if let id = f.text("id") { folders[id] = f.text("name") ?? "" }
        }
        var result = ImportResult(format: .bitwardenJSON, items: [], skipped: [:], warnings: [])
        let typeNames = [3: "card", 4: "identity", 5: "ssh key"]
        for (k, it) in items.enumerated() {
            let type = it["type"]?.looseInt ?? 0
            let name = it.text("name") ?? ""
            let notes = it.text("notes") ?? ""
            let folder = it.text("folderId").flatMap { folders[$0] } ?? ""
            let created = Importer.date(it.text("creationDate"))
            let modified = Importer.date(it.text("revisionDate"))
            let id = it.text("id").flatMap(UUID.init(uuidString:))
            var item: VaultItem
            switch type {
            case 1:
                let login = it.object("login") ?? .object([], line: 0)
                let uris = Importer.unique(login.objects("uris").compactMap { $0.text("uri") })
                item = Importer.entry(title: name, username: login.text("username") ?? "",
                    password: login.text("password") ?? "", website: uris.first ?? "", notes: notes,
                                      folder: folder, created: created, modified: modified, now: now, id: id)
                item.uris = Array(uris.dropFirst())
                item.totp = Secret(login.text("totp") ?? "")
                if let changed = Importer.date(login.text("passwordRevisionDate")) {
                    item.passwordChanged = changed.wholeMilliseconds
                }
                item.history = it.objects("passwordHistory").compactMap { h in
                    guard let p = h.text("password"), !p.isEmpty else { return nil }
                    return PasswordHistoryEntry(
                        password: Secret(p), changed: Importer.date(h.text("lastUsedDate")) ?? item.modified)
                }
                item.history.sort { $0.changed < $1.changed }   // Bitwarden lists the newest first
                result.notKeep("passkey", login["fido2Credentials"]?.items?.count ?? 0)
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
            item.fields = fields(it.objects("fields"), into: &result)
            item.favorite = it["favorite"]?.looseBool ?? false
            item.reprompt = (it["reprompt"]?.looseInt ?? 0) != 0
            for a in it.objects("attachments") {
                result.attachment(a.text("fileName") ?? "", of: item.title)
            }
            result.items.append(item)
        }
        return result
    }
}
