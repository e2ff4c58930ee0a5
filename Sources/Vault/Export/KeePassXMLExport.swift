#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Escaping
import TextBasics

/// KeePass 2.x XML export (docs/vault-import.md, "Export"): one group per folder path
/// segment under the root group; notes become entries with the text in Notes (KeePass
/// has no note type).
enum KeePassXMLExport {
    final class Node { var children: [String: Node] = [:]; var entries: [VaultItem] = [] }

    static func document(_ items: [VaultItem]) -> Data {
        let root = Node()
        for i in items {
            var n = root
            for part in i.folder.split(separator: "/").map(String.init) where !part.isEmpty {
                if n.children[part] == nil { n.children[part] = Node() }
                n = n.children[part]!
            }
            n.entries.append(i)
        }
        var groupCounter = 0
        func group(_ name: String, _ n: Node, _ indent: String) -> String {
            groupCounter += 1
            let gid = UUID(uuidString: cFormat("00000000-0000-4000-9000-%012d", groupCounter))!
            var x = "\(indent)<Group><UUID>\(uuid(gid))</UUID><Name>\(esc(name))</Name>\n"
            for e in n.entries { x += entry(e, indent + "  ") }
            for (name, child) in n.children.sorted(by: { $0.key < $1.key }) { x += group(name, child, indent + "  ") }
            return x + "\(indent)</Group>\n"
        }
        let body = group("Root", root, "    ")
        return Data(
            ("<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n<KeePassFile>\n  "
                + "<Meta><Generator>Dossier</Generator></Meta>\n  <Root>\n"
                + body + "  </Root>\n</KeePassFile>\n").utf8)
    }

    /// The `String` pairs of an item: the five standard ones, the TOTP secret (`otp` for
    /// an otpauth URI, else `TimeOtp-Secret-Base32`), extra URLs as `KP2A_URL`,
    /// `KP2A_URL_1`, …, then custom fields (a name already used gets ` (2)`, ` (3)`, …;
    /// an empty one is `Field N`; one the importer would read as TOTP or a URL gets
    /// a `Field ` prefix).
    static func strings(_ e: VaultItem) -> [(key: String, value: String, protect: Bool)] {
        var out: [(key: String, value: String, protect: Bool)] = [
            ("Title", e.title, false), ("UserName", e.username, false), ("Password", e.password.reveal, true),
            ("URL", e.website, false), ("Notes", e.kind == .entry ? e.details.reveal : e.text.reveal, false)]
        if !e.totp.isEmpty {
            out.append(
                (
                    e.totp.reveal.lowercased().hasPrefix("otpauth://") ? "otp" : "TimeOtp-Secret-Base32", e.totp.reveal,
                    true
                ))
        }
        for (k, u) in e.uris.enumerated() { out.append((k == 0 ? "KP2A_URL" : "KP2A_URL_\(k)", u, false)) }
        var used = Set(out.map(\.key))
        for (k, f) in e.fields.enumerated() {
            // names the importer reads specially (TOTP, extra URLs) get a "Field " prefix
            var base = f.name.isEmpty ? "Field \(k + 1)" : f.name
            if KeePassXML.totpKeys.contains(base) || KeePassXML.isExtraURL(base) { base = "Field " + base }
            var name = base, n = 1
            while used.contains(name) { n += 1; name = "\(base) (\(n))" }
            used.insert(name)
            out.append((name, f.value.reveal, f.hidden))
        }
        return out
    }

    static func entry(_ e: VaultItem, _ indent: String) -> String {
        var x = "\(indent)<Entry><UUID>\(uuid(e.id))</UUID>\n"
        if !e.tags.isEmpty { x += "\(indent)  <Tags>\(esc(e.tags.joined(separator: ";")))</Tags>\n" }
        if e.excludeFromReports { x += "\(indent)  <QualityCheck>False</QualityCheck>\n" }
        x +=
            "\(indent)  "
                + "<Times><CreationTime>\(Exporter.iso(e.created))</CreationTime>"
                + "<LastModificationTime>\(Exporter.iso(e.modified))</LastModificationTime>"
        if let exp = e.expires { x += "<ExpiryTime>\(Exporter.iso(exp))</ExpiryTime><Expires>True</Expires>" }
        x += "</Times>\n"
        for s in strings(e) {
            x +=
                "\(indent)  "
                    + "<String><Key>\(esc(s.key))</Key><Value\(s.protect ? " ProtectInMemory=\"True\"" : "")>"
                    + "\(esc(s.value))</Value></String>\n"
        }
        let flags = [(KeePassXML.favoriteKey, e.favorite), (KeePassXML.repromptKey, e.reprompt)].filter(\.1)
        if !flags.isEmpty {
            x +=
                "\(indent)  <CustomData>" + flags.map { "<Item><Key>\($0.0)</Key><Value>true</Value></Item>" }.joined()
                + "</CustomData>\n"
        }
        if !e.history.isEmpty {
            // one version per earlier password, oldest first, as KeePass orders history
            x += "\(indent)  <History>\n"
            for h in e.history {
                x +=
                    "\(indent)    "
                        + "<Entry><UUID>\(uuid(e.id))</UUID><Times>"
                        + "<LastModificationTime>\(Exporter.iso(h.changed))</LastModificationTime></Times>"
                x += "<String><Key>Title</Key><Value>\(esc(e.title))</Value></String>"
                x +=
                    "<String><Key>Password</Key><Value "
                        + "ProtectInMemory=\"True\">\(esc(h.password.reveal))</Value></String></Entry>\n"
            }
            x += "\(indent)  </History>\n"
        }
        return x + "\(indent)</Entry>\n"
    }

    static func uuid(_ id: UUID) -> String { withUnsafeBytes(of: id.uuid) { Data($0).base64EncodedString() } }

    /// XML text, as the shared escaper writes it for a document other programs read.
    static func esc(_ s: String) -> String { XMLText.escapeForXMLDocument(s) }
}
