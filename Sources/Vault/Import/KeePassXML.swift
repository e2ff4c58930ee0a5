#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import XMLScan

// MARK: - KeePass 2.x XML

/// Reads a KeePass 2.x XML document (an XML export, or the XML inside a KDBX file):
/// `KeePassFile/Root/Group` trees of `Entry` elements with `String{Key,Value}` pairs,
/// `UUID` (base64 of 16 bytes), `Times`, `Tags`, `QualityCheck`, `CustomData`, `Binary`
/// and `History`. Entries in the recycle bin (the group whose UUID is
/// `Meta/RecycleBinUUID`) are counted as skipped. docs/vault-import.md has the mapping.
enum KeePassXML {
    /// `unprotect` turns the base64-decoded bytes of a `<Value Protected="True">` into
    /// plain bytes (KDBX's inner stream, called in document order); nil for XML exports,
    /// whose values are plain text.
    static func read(_ data: Data, file: String?, now: Date, format: ImportFormat = .keepassXML,
                     unprotect: ((Data) throws -> Data)? = nil) throws -> ImportResult {
        var walk = KeePassXMLParser()
        walk.unprotect = unprotect
        var scanner: XMLScanner
        do { scanner = try XMLScanner(data) } catch {
            throw VaultError(.invalidInput, "XML error: \(error.reason)", file: file, line: error.line)
        }
        do {
            while let event = try scanner.next() {
                switch event {
                case .start(let name, let attributes): walk.start(name.qualified, attributes: attributes)
                case .text(let t), .cdata(let t): walk.characters(t)
                case .end(let name): try walk.end(name.qualified)
                }
            }
        } catch let e as XMLError {
            throw VaultError(.invalidInput, "XML error: \(e.reason)", file: file, line: e.line)
        } catch var e as VaultError {
            e.file = file
            e.line = scanner.location().line
            throw e
        }
        guard walk.sawRoot else {
            throw VaultError(
                .invalidInput, "not a KeePass document: no KeePassFile/Root element", file: file,
                line: scanner.location().line)
        }
        var result = ImportResult(format: format, items: [], skipped: [:], warnings: [])
        for e in walk.entries {
            if e.recycled { result.skipped["recycle bin", default: 0] += 1; continue }
            result.items.append(item(e, now: now, into: &result))
        }
        return result
    }

    /// The standard string fields.
    static let standardKeys: Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]
    /// String keys holding the TOTP secret, most preferred first: KeePassXC's `otp`
    /// (an otpauth URI), KeePass 2.47+'s `TimeOtp-Secret-Base32`, KeePassXC's legacy `TOTP Seed`.
    static let totpKeys = ["otp", "TimeOtp-Secret-Base32", "TOTP Seed"]
    /// Additional URLs (KeePassXC and Keepass2Android): `KP2A_URL`, `KP2A_URL_1`, ….
    static func isExtraURL(_ key: String) -> Bool { key.hasPrefix("KP2A_URL") }
    /// Entry `CustomData` keys Dossier reads: KeePassXC's legacy exclude-from-reports flag
    /// and the flags KeePass lacks, written by Dossier's own export.
    static let knownBadKey = "KnownBad", favoriteKey = "Dossier.Favorite", repromptKey = "Dossier.Reprompt"

    static func item(_ e: Entry, now: Date, into result: inout ImportResult) -> VaultItem {
        func s(_ k: String) -> String { e.strings.first { $0.key == k }?.value ?? "" }
        let id = Data(base64Encoded: e.uuid).flatMap { d -> UUID? in
            guard d.count == 16 else { return nil }
            return d.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        var item = Importer.entry(
            title: s("Title"), username: s("UserName"), password: s("Password"), website: s("URL"),
            notes: s("Notes"), folder: e.group, created: date(e.created), modified: date(e.modified), now: now, id: id)
        let totpKey = totpKeys.first { k in e.strings.contains { $0.key == k && !$0.value.isEmpty } }
        if let totpKey { item.totp = Secret(s(totpKey)) }
        for str in e.strings where !standardKeys.contains(str.key) && str.key != totpKey {
            if isExtraURL(str.key) {
                if !str.value.isEmpty { item.uris.append(str.value) }
            } else {
                item.fields.append(CustomField(name: str.key, value: Secret(str.value), hidden: str.hidden))
            }
        }
        item.tags = Importer.tags(e.tags)
        if e.expires { item.expires = date(e.expiryTime)?.wholeMilliseconds }
        item.excludeFromReports = e.qualityCheck == false || Importer.flag(e.customData[knownBadKey] ?? "")
        item.favorite = Importer.flag(e.customData[favoriteKey] ?? "")
        item.reprompt = Importer.flag(e.customData[repromptKey] ?? "")
        result.notKeep(
            "entry custom data item",
            e.customData.keys.filter { ![knownBadKey, favoriteKey, repromptKey].contains($0) }.count)
        // history versions: each distinct earlier password is kept, with the version's time
        var seen: Set<String> = [item.password.reveal]
        for h in e.history where !h.password.isEmpty && seen.insert(h.password).inserted {
            item.history.append(
                PasswordHistoryEntry(password: Secret(h.password), changed: date(h.modified) ?? item.modified))
        }
        item.history.sort { $0.changed < $1.changed }
        result.notKeep("history version (only its password kept)", e.history.count)
        for a in e.attachments { result.attachment(a, of: item.title) }
        return item
    }

    /// ISO 8601, or (KDBX 4 style) base64 of little-endian seconds since 0001-01-01.
    static func date(_ s: String) -> Date? {
        if let d = Importer.date(s) { return d }
        guard let b = Data(base64Encoded: s), b.count == 8 else { return nil }
        let secs = b.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        return Date(timeIntervalSince1970: Double(secs) - 62_135_596_800)
    }

    /// One `Entry` as read, before mapping.
    struct Entry {
        struct Field { var key: String; var value: String; var hidden: Bool }
        struct Version { var password = ""; var modified = "" }
        var uuid = ""
        var group = ""
        var recycled = false
        /// `String` pairs in document order.
        var strings: [Field] = []
        var created = ""
        var modified = ""
        var tags = ""
        var expires = false
        var expiryTime = ""
        /// `QualityCheck` (KeePass 2.48+): false = excluded from quality reports.
        var qualityCheck: Bool? = nil
        var customData: [String: String] = [:]
        var history: [Version] = []
        var attachments: [String] = []
    }
}
