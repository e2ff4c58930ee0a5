#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONLines
import TextBasics

/// Unencrypted exports other managers import (docs/vault-import.md, "Export"): every live
/// item, secrets in clear text — callers confirm first and never print them by default.
public enum Exporter {
    public enum Format: String, Sendable, CaseIterable {
        case bitwardenJSON = "bitwarden-json", keepassXML = "keepass-xml"
    }

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
        items.filter { !$0.deleted }.sorted {
            ($0.title.lowercased(), $0.id.uuidString) < ($1.title.lowercased(), $1.id.uuidString)
        }
    }

    static func iso(_ d: Date) -> String {
        ISODateText.format(d, fractionalSeconds: true)
    }

    /// Bitwarden's unencrypted JSON: folders by name (ids are the folder's position), items
    /// type 1 (login) and 2 (secure note).
    static func bitwarden(_ items: [VaultItem]) throws -> Data {
        let folderNames = Array(Set(items.map(\.folder).filter { !$0.isEmpty })).sorted()
        let folderID = Dictionary(uniqueKeysWithValues: folderNames.enumerated().map {
            ($1, cFormat("00000000-0000-4000-8000-%012d", $0 + 1))
        })
        let out: JSONOut = .object([
            "encrypted": .bool(false),
            "folders": .array(folderNames.map { .object(["id": .string(folderID[$0]!), "name": .string($0)]) }),
            "items": .array(items.map { i -> JSONOut in
                var o: [String: JSONOut] = [
                    "id": .string(i.id.uuidString.lowercased()), "organizationId": .null, "collectionIds": .null,
                    "folderId": folderID[i.folder].map { .string($0) } ?? .null, "name": .string(i.title),
                    "favorite": .bool(i.favorite), "reprompt": .int(i.reprompt ? 1 : 0),
                    "fields": .array(i.fields.map {
                        .object(["name": .string($0.name), "value": .string($0.value.reveal),
                                 "type": .int($0.hidden ? 1 : 0), "linkedId": .null])
                    }),
                    "creationDate": .string(iso(i.created)), "revisionDate": .string(iso(i.modified))]
                if i.kind == .entry {
                    o["type"] = .int(1)
                    o["notes"] = i.details.isEmpty ? .null : .string(i.details.reveal)
                    let uris = ([i.website] + i.uris).filter { !$0.isEmpty }
                    o["login"] = .object([
                        "username": .string(i.username), "password": .string(i.password.reveal),
                        "totp": i.totp.isEmpty ? .null : .string(i.totp.reveal),
                        "passwordRevisionDate": .string(iso(i.passwordChanged)),
                        "uris": .array(uris.map { .object(["match": .null, "uri": .string($0)]) })])
                    o["passwordHistory"] = i.history.isEmpty ? .null : .array(i.history.reversed().map {
                        .object(["lastUsedDate": .string(iso($0.changed)), "password": .string($0.password.reveal)])
                    })
                } else {
                    o["type"] = .int(2)
                    o["notes"] = .string(i.text.reveal)
                    o["secureNote"] = .object(["type": .int(0)])
                }
                return .object(o)
            }),
        ])
        // The bytes JSONSerialization wrote (.prettyPrinted, .sortedKeys,
        // .withoutEscapingSlashes): every key here is ASCII, so byte order is its order.
        return Data(out.written(pretty: true))
    }
}
