import Foundation

/// Unencrypted exports other managers import (docs/vault-import.md, "Export"): every live
/// item, secrets in clear text — callers confirm first and never print them by default.
public enum Exporter {
    public enum Format: String, Sendable, CaseIterable { case bitwardenJSON = "bitwarden-json", keepassXML = "keepass-xml" }

    public static func export(_ items: [VaultItem], as format: Format) throws -> Data {
        let live = items.filter { !$0.deleted }.sorted { ($0.title.lowercased(), $0.id.uuidString) < ($1.title.lowercased(), $1.id.uuidString) }
        switch format {
        case .bitwardenJSON: return try bitwarden(live)
        case .keepassXML: return keepass(live)
        }
    }

    static func iso(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    /// Bitwarden's unencrypted JSON: folders by name (ids are the folder's position), items
    /// type 1 (login) and 2 (secure note).
    static func bitwarden(_ items: [VaultItem]) throws -> Data {
        let folderNames = Array(Set(items.map(\.folder).filter { !$0.isEmpty })).sorted()
        let folderID = Dictionary(uniqueKeysWithValues: folderNames.enumerated().map { ($1, String(format: "00000000-0000-4000-8000-%012d", $0 + 1)) })
        let out: [String: Any] = [
            "encrypted": false,
            "folders": folderNames.map { ["id": folderID[$0]!, "name": $0] },
            "items": items.map { i -> [String: Any] in
                var o: [String: Any] = ["id": i.id.uuidString.lowercased(), "organizationId": NSNull(), "collectionIds": NSNull(),
                                        "folderId": folderID[i.folder].map { $0 as Any } ?? NSNull(), "name": i.title,
                                        "favorite": false, "reprompt": 0,
                                        "creationDate": iso(i.created), "revisionDate": iso(i.modified)]
                if i.kind == .entry {
                    o["type"] = 1
                    o["notes"] = i.details.isEmpty ? NSNull() : i.details.reveal
                    o["login"] = ["username": i.username, "password": i.password.reveal, "totp": NSNull(),
                                  "uris": i.website.isEmpty ? [] : [["match": NSNull(), "uri": i.website]]] as [String: Any]
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

    /// KeePass 2.x XML: one group per folder path segment under the root group; notes
    /// become entries with the text in Notes (KeePass has no note type).
    static func keepass(_ items: [VaultItem]) -> Data {
        final class Node { var children: [String: Node] = [:]; var entries: [VaultItem] = [] }
        let root = Node()
        for i in items {
            var n = root
            for part in i.folder.split(separator: "/").map(String.init) where !part.isEmpty {
                if n.children[part] == nil { n.children[part] = Node() }
                n = n.children[part]!
            }
            n.entries.append(i)
        }
        func esc(_ s: String) -> String {
            var o = ""
            for u in s.unicodeScalars {
                switch u {
                case "&": o += "&amp;"
                case "<": o += "&lt;"
                case ">": o += "&gt;"
                case "\"": o += "&quot;"
                case "\r": o += "&#13;"
                default:
                    // XML 1.0 forbids most control characters: drop them
                    if u.value < 0x20 && u != "\n" && u != "\t" { continue }
                    o.unicodeScalars.append(u)
                }
            }
            return o
        }
        func uuid(_ id: UUID) -> String { withUnsafeBytes(of: id.uuid) { Data($0).base64EncodedString() } }
        var groupCounter = 0
        func group(_ name: String, _ n: Node, _ indent: String) -> String {
            groupCounter += 1
            let gid = UUID(uuidString: String(format: "00000000-0000-4000-9000-%012d", groupCounter))!
            var x = "\(indent)<Group><UUID>\(uuid(gid))</UUID><Name>\(esc(name))</Name>\n"
            for e in n.entries {
                x += "\(indent)  <Entry><UUID>\(uuid(e.id))</UUID>\n"
                x += "\(indent)    <Times><CreationTime>\(iso(e.created))</CreationTime><LastModificationTime>\(iso(e.modified))</LastModificationTime></Times>\n"
                let strings: [(String, String, Bool)] = [("Title", e.title, false), ("UserName", e.username, false),
                                                         ("Password", e.password.reveal, true), ("URL", e.website, false),
                                                         ("Notes", e.kind == .entry ? e.details.reveal : e.text.reveal, false)]
                for (k, v, protect) in strings {
                    x += "\(indent)    <String><Key>\(k)</Key><Value\(protect ? " ProtectInMemory=\"True\"" : "")>\(esc(v))</Value></String>\n"
                }
                x += "\(indent)  </Entry>\n"
            }
            for (name, child) in n.children.sorted(by: { $0.key < $1.key }) { x += group(name, child, indent + "  ") }
            return x + "\(indent)</Group>\n"
        }
        let body = group("Root", root, "    ")
        return Data(("<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n<KeePassFile>\n  <Meta><Generator>Dossier</Generator></Meta>\n  <Root>\n"
                     + body + "  </Root>\n</KeePassFile>\n").utf8)
    }
}
