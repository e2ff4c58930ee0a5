import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

// MARK: - KeePass 2.x XML

/// Reads a KeePass 2.x XML document (an XML export, or the XML inside a KDBX file):
/// `KeePassFile/Root/Group` trees of `Entry` elements with `String{Key,Value}` pairs
/// (Title, UserName, Password, URL, Notes), `UUID` (base64 of 16 bytes) and `Times`.
/// Entries in the recycle bin (the group whose UUID is `Meta/RecycleBinUUID`) are counted
/// as skipped; what an entry holds beyond the vault's fields is counted in `notKept`.
enum KeePassXML {
    /// `unprotect` turns the base64-decoded bytes of a `<Value Protected="True">` into
    /// plain bytes (KDBX's inner stream, called in document order); nil for XML exports,
    /// whose values are plain text.
    static func read(_ data: Data, file: String?, now: Date, format: ImportFormat = .keepassXML,
                     unprotect: ((Data) throws -> Data)? = nil) throws -> ImportResult {
        let delegate = Delegate()
        delegate.unprotect = unprotect
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parser.shouldResolveExternalEntities = false
        if !parser.parse() || delegate.failure != nil {
            if let f = delegate.failure { throw VaultError(f.kind, f.message, file: file, line: parser.lineNumber) }
            throw VaultError(.invalidInput, "XML error: \(parser.parserError.map { String(describing: ($0 as NSError).code) } ?? "unknown")",
                             file: file, line: parser.lineNumber)
        }
        if let open = delegate.openElement {
            throw VaultError(.invalidInput, "the XML ends inside <\(open)>: the file is truncated or damaged", file: file, line: parser.lineNumber)
        }
        guard delegate.sawRoot else {
            throw VaultError(.invalidInput, "not a KeePass document: no KeePassFile/Root element", file: file, line: parser.lineNumber)
        }
        var result = ImportResult(format: format, items: [], skipped: [:], warnings: [])
        result.notKept = delegate.notKept
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

    /// The standard string fields the vault keeps.
    static let keptStrings: Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]

    final class Delegate: NSObject, XMLParserDelegate {
        var entries: [Entry] = []
        var unprotect: ((Data) throws -> Data)?
        var failure: VaultError?
        var sawRoot = false
        /// Kinds of data not kept, with counts (live entries only; recycled ones are skipped whole).
        var notKept: [String: Int] = [:]
        private var protected = false
        private var pending: [String: Int] = [:]
        /// The innermost element still open when parsing stopped (nil for a whole document).
        var openElement: String? { path.last }
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
            case "Root" where path.count == 2: sawRoot = true
            case "Group": groups.append(""); groupUUIDs.append("")
            case "History": historyDepth += 1
            case "Entry" where historyDepth == 0: current = Entry(); pending = [:]
            case "Entry": pending["password history version", default: 0] += 1
            case "Binary" where current != nil && historyDepth == 0 && path.dropLast().last == "Entry":
                pending["attachment", default: 0] += 1
            default: break
            }
            protected = name == "Value" && (attributes["Protected"] ?? "").lowercased() == "true"
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
            case "Value" where parent == "String":
                value = text
                if protected, let unprotect, failure == nil {
                    // every protected value, history versions included, advances the stream
                    do {
                        guard let raw = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                            throw VaultError(.corrupt, "a protected value is not base64")
                        }
                        value = String(decoding: try unprotect(raw), as: UTF8.self)
                    } catch let e as VaultError { failure = e; parser.abortParsing() } catch { failure = VaultError(.corrupt, "\(error)"); parser.abortParsing() }
                }
                protected = false
            case "String" where inEntry && path.count >= 2 && path[path.count - 2] == "Entry":
                current?.strings[key] = value
                if !KeePassXML.keptStrings.contains(key) {
                    pending[key.lowercased().hasPrefix("otp") || key.hasPrefix("TimeOtp") || key.hasPrefix("HmacOtp") ? "TOTP/OTP setting" : "custom field", default: 0] += 1
                }
            case "Tags" where inEntry && parent == "Entry" && !text.isEmpty: pending["tags", default: 0] += 1
            case "Expires" where inEntry && parent == "Times" && text.lowercased() == "true": pending["expiry date", default: 0] += 1
            case "CreationTime" where inEntry && path.dropLast().last == "Times" && path.dropLast(2).last == "Entry": current?.created = text
            case "LastModificationTime" where inEntry && path.dropLast().last == "Times" && path.dropLast(2).last == "Entry": current?.modified = text
            case "History": historyDepth -= 1
            case "Entry" where historyDepth == 0:
                if var e = current {
                    // the root group is the database name: leave it out of the folder path
                    e.group = groups.dropFirst().joined(separator: "/")
                    // the recycle bin is the group named by its UUID, never guessed by name
                    e.recycled = !recycleBinUUID.isEmpty && groupUUIDs.contains(recycleBinUUID)
                    entries.append(e)
                    if !e.recycled { for (k, n) in pending { notKept[k, default: 0] += n } }
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
