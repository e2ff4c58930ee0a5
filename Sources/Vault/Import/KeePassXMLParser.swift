#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import XMLScan
import TextBasics

/// The event walk behind ``KeePassXML`` (fed by ``XMLScanner``): collects
/// ``KeePassXML/Entry`` values with their group path (the root group left out) and
/// recycle-bin membership (by UUID). Element names are matched as written (KeePass
/// documents use no namespaces).
struct KeePassXMLParser {
    var entries: [KeePassXML.Entry] = []
    var unprotect: ((Data) throws -> Data)?
    var sawRoot = false
    private var path: [String] = []
    private var groups: [String] = []
    private var recycleBinUUID = ""
    private var groupUUIDs: [String] = []
    private var current: KeePassXML.Entry? = nil
    private var version: KeePassXML.Entry.Version? = nil
    private var historyDepth = 0
    private var text = ""
    private var key = ""
    private var value = ""
    /// `Protected="True"`: the value is encrypted by the KDBX inner stream.
    private var protected = false
    /// `Protected` or `ProtectInMemory` (XML exports): the field is concealed.
    private var hidden = false
    private var valueHidden = false
    private var dataKey = ""

    private func ancestor(_ k: Int) -> String { path.count > k ? path[path.count - 1 - k] : "" }

    mutating func start(_ name: String, attributes: [XMLAttribute]) {
        path.append(name)
        text = ""
        switch name {
        case "Root" where path.count == 2: sawRoot = true
        case "Group": groups.append(""); groupUUIDs.append("")
        case "History": historyDepth += 1
        case "Entry" where historyDepth == 0: current = KeePassXML.Entry()
        case "Entry": version = KeePassXML.Entry.Version()
        default: break
        }
        protected = name == "Value" && (attributes["Protected"] ?? "").lowercased() == "true"
        hidden = protected || (name == "Value" && (attributes["ProtectInMemory"] ?? "").lowercased() == "true")
    }

    mutating func characters(_ string: String) { text += string }

    /// Throws when a protected value cannot be decrypted (KDBX inner stream).
    mutating func end(_ name: String) throws {
        let parent = ancestor(1)
        let inEntry = historyDepth == 0 && current != nil
        let entryTimes = parent == "Times" && ancestor(2) == "Entry"
        switch name {
        case "RecycleBinUUID": recycleBinUUID = text
        case "Name" where parent == "Group": if !groups.isEmpty { groups[groups.count - 1] = text }
        case "UUID" where parent == "Group": if !groupUUIDs.isEmpty { groupUUIDs[groupUUIDs.count - 1] = text }
        case "UUID" where parent == "Entry" && inEntry: current?.uuid = text
        case "Key" where parent == "String": key = text
        case "Value" where parent == "String":
            value = text
            valueHidden = hidden
            if protected, let unprotect {
                // every protected value, history versions included, advances the stream
                do {
                    guard let raw = Data(base64Encoded: text.trimmingWhitespaceAndNewlines()) else {
                        throw VaultError(.corrupt, "a protected value is not base64")
                    }
                    value = String(decoding: try unprotect(raw), as: UTF8.self)
                } catch let e as VaultError { throw e } catch { throw VaultError(.corrupt, "\(error)") }
            }
        case "String" where parent == "Entry":
            if inEntry {
                current?.strings.append(.init(key: key, value: value, hidden: valueHidden))
            } else if key == "Password" {
                version?.password = value
            }
        case "Key" where parent == "Binary" && ancestor(2) == "Entry" && inEntry: current?.attachments.append(text)
        case "Key" where parent == "Item" && ancestor(2) == "CustomData" && ancestor(3) == "Entry": dataKey = text
        case "Value" where parent == "Item" && ancestor(2) == "CustomData" && ancestor(3) == "Entry" && inEntry:
            current?.customData[dataKey] = text
        case "Tags" where inEntry && parent == "Entry": current?.tags = text
        case "QualityCheck" where inEntry && parent == "Entry": current?.qualityCheck = text.lowercased() != "false"
        case "Expires" where inEntry && entryTimes: current?.expires = text.lowercased() == "true"
        case "ExpiryTime" where inEntry && entryTimes: current?.expiryTime = text
        case "CreationTime" where inEntry && entryTimes: current?.created = text
        case "LastModificationTime" where entryTimes:
            if inEntry { current?.modified = text } else { version?.modified = text }
        case "History": historyDepth -= 1
        case "Entry" where historyDepth > 0:
            if let version { current?.history.append(version) }
            version = nil
        case "Entry":
            if var e = current {
                // the root group is the database name: leave it out of the folder path
                e.group = groups.dropFirst().joined(separator: "/")
                // the recycle bin is the group named by its UUID, never guessed by name
                e.recycled = !recycleBinUUID.isEmpty && groupUUIDs.contains(recycleBinUUID)
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
