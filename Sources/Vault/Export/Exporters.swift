import Foundation
import TextBasics

/// Unencrypted exports other managers import (docs/vault-import.md, "Export"): every live
/// item, secrets in clear text — callers confirm first and never print them by default.
public enum Exporter {
    public enum Format: String, Sendable, CaseIterable { case bitwardenJSON = "bitwarden-json", keepassXML = "keepass-xml" }

    public static func export(_ items: [VaultItem], as format: Format) throws -> Data {
        let live = sorted(items)
        switch format {
        case .bitwardenJSON: return try bitwarden(live)
        case .keepassXML: return KeePassXMLExport.document(live)
        }
    }

    /// What the format has no place for, by kind and count of items (e.g. `tags`: 3):
    /// Bitwarden has no tags, expiry dates or exclude-from-reports flag. The CLI prints it;
    /// nothing is left out silently.
    public static func notWritten(_ items: [VaultItem], as format: Format) -> [String: Int] {
        guard format == .bitwardenJSON else { return [:] }
        var out: [String: Int] = [:]
        for i in sorted(items) {
            if !i.tags.isEmpty { out["tags", default: 0] += 1 }
            if i.expires != nil { out["expiry date", default: 0] += 1 }
            if i.excludeFromReports { out["exclude-from-reports flag", default: 0] += 1 }
        }
        return out
    }

    static func sorted(_ items: [VaultItem]) -> [VaultItem] {
        items.filter { !$0.deleted }.sorted { ($0.title.lowercased(), $0.id.uuidString) < ($1.title.lowercased(), $1.id.uuidString) }
    }

    static func iso(_ d: Date) -> String {
        ISODateText.format(d, fractionalSeconds: true)
    }

    /// Bitwarden's unencrypted JSON: folders by name (ids are the folder's position), items
    /// type 1 (login) and 2 (secure note).
    static func bitwarden(_ items: [VaultItem]) throws -> Data {
        let folderNames = Array(Set(items.map(\.folder).filter { !$0.isEmpty })).sorted()
        let folderID = Dictionary(uniqueKeysWithValues: folderNames.enumerated().map { ($1, cFormat("00000000-0000-4000-8000-%012d", $0 + 1)) })
        let out: [String: Any] = [
            "encrypted": false,
            "folders": folderNames.map { ["id": folderID[$0]!, "name": $0] },
            "items": items.map { i -> [String: Any] in
                var o: [String: Any] = ["id": i.id.uuidString.lowercased(), "organizationId": NSNull(), "collectionIds": NSNull(),
                                        "folderId": folderID[i.folder].map { $0 as Any } ?? NSNull(), "name": i.title,
                                        "favorite": i.favorite, "reprompt": i.reprompt ? 1 : 0,
                                        "fields": i.fields.map { ["name": $0.name, "value": $0.value.reveal, "type": $0.hidden ? 1 : 0, "linkedId": NSNull()] as [String: Any] },
                                        "creationDate": iso(i.created), "revisionDate": iso(i.modified)]
                if i.kind == .entry {
                    o["type"] = 1
                    o["notes"] = i.details.isEmpty ? NSNull() : i.details.reveal
                    let uris = ([i.website] + i.uris).filter { !$0.isEmpty }
                    o["login"] = ["username": i.username, "password": i.password.reveal,
                                  "totp": i.totp.isEmpty ? NSNull() : i.totp.reveal as Any,
                                  "passwordRevisionDate": iso(i.passwordChanged),
                                  "uris": uris.map { ["match": NSNull(), "uri": $0] }] as [String: Any]
                    o["passwordHistory"] = i.history.isEmpty ? NSNull() : i.history.reversed().map { ["lastUsedDate": iso($0.changed), "password": $0.password.reveal] } as Any
                } else {
                    o["type"] = 2
                    o["notes"] = i.text.reveal
                    o["secureNote"] = ["type": 0]
                }
                return o
            },
        ]
        return try JSONSerialization.data(withJSONObject: out, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
