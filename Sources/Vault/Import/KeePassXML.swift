import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

// MARK: - KeePass 2.x XML

/// Reads a KeePass 2.x XML export: `KeePassFile/Root/Group` trees of `Entry` elements
/// with `String{Key,Value}` pairs (Title, UserName, Password, URL, Notes), `UUID`
/// (base64 of 16 bytes) and `Times`. Entries inside `History` are old versions and are
/// skipped; entries in the recycle bin are counted as skipped.
enum KeePassXML {
    static func read(_ data: Data, file: String?, now: Date) throws -> ImportResult {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parser.shouldResolveExternalEntities = false
        if !parser.parse() {
            throw VaultError(.invalidInput, "XML error: \(parser.parserError.map { String(describing: ($0 as NSError).code) } ?? "unknown")",
                             file: file, line: parser.lineNumber)
        }
        var result = ImportResult(format: .keepassXML, items: [], skipped: [:], warnings: [])
        for e in delegate.entries {
            if e.recycled { result.skipped["recycle bin", default: 0] += 1; continue }
            let id = Data(base64Encoded: e.uuid).flatMap { d -> UUID? in
                guard d.count == 16 else { return nil }
                return d.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
            }
            result.items.append(Importer.entry(title: e.strings["Title"] ?? "", username: e.strings["UserName"] ?? "",
                                               password: e.strings["Password"] ?? "", website: e.strings["URL"] ?? "",
                                               notes: e.strings["Notes"] ?? "", folder: e.group,
                                               created: date(e.created), modified: date(e.modified), now: now, id: id))
        }
        return result
    }

    /// ISO 8601, or (KDBX 4 style) base64 of little-endian seconds since 0001-01-01.
    static func date(_ s: String) -> Date? {
        if let d = Importer.date(s) { return d }
        guard let b = Data(base64Encoded: s), b.count == 8 else { return nil }
        let secs = b.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        return Date(timeIntervalSince1970: Double(secs) - 62_135_596_800)
    }

    struct Entry {
        var uuid = ""
        var group = ""
        var recycled = false
        var strings: [String: String] = [:]
        var created = ""
        var modified = ""
    }

    final class Delegate: NSObject, XMLParserDelegate {
        var entries: [Entry] = []
        private var path: [String] = []
        private var groups: [String] = []
        private var recycleBinUUID = ""
        private var groupUUIDs: [String] = []
        private var current: Entry? = nil
        private var historyDepth = 0
        private var text = ""
        private var key = ""
        private var value = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            path.append(name)
            text = ""
            switch name {
            case "Group": groups.append(""); groupUUIDs.append("")
            case "History": historyDepth += 1
            case "Entry" where historyDepth == 0: current = Entry()
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let parent = path.count >= 2 ? path[path.count - 2] : ""
            let inEntry = historyDepth == 0 && current != nil
            switch name {
            case "RecycleBinUUID": recycleBinUUID = text
            case "Name" where parent == "Group": if !groups.isEmpty { groups[groups.count - 1] = text }
            case "UUID" where parent == "Group": if !groupUUIDs.isEmpty { groupUUIDs[groupUUIDs.count - 1] = text }
            case "UUID" where parent == "Entry" && inEntry: current?.uuid = text
            case "Key" where parent == "String": key = text
            case "Value" where parent == "String": value = text
            case "String" where inEntry && path.count >= 2 && path[path.count - 2] == "Entry": current?.strings[key] = value
            case "CreationTime" where inEntry && path.dropLast().last == "Times" && path.dropLast(2).last == "Entry": current?.created = text
            case "LastModificationTime" where inEntry && path.dropLast().last == "Times" && path.dropLast(2).last == "Entry": current?.modified = text
            case "History": historyDepth -= 1
            case "Entry" where historyDepth == 0:
                if var e = current {
                    // the root group is the database name: leave it out of the folder path
                    e.group = groups.dropFirst().joined(separator: "/")
                    e.recycled = (!recycleBinUUID.isEmpty && groupUUIDs.contains(recycleBinUUID)) || groups.contains("Recycle Bin")
                    entries.append(e)
                }
                current = nil
            case "Group": groups.removeLast(); groupUUIDs.removeLast()
            default: break
            }
            path.removeLast()
            text = ""
        }
    }
}
