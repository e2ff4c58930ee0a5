#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines
import TextBasics

// MARK: - Import result

/// The formats the importers read, detected by content (``Importer/detect(_:)``).
public enum ImportFormat: String, Sendable, Codable, CaseIterable {
    case bitwardenJSON = "bitwarden-json"
    case bitwardenCSV = "bitwarden-csv"
    case keepassXML = "keepass-xml"
    case keepassxcCSV = "keepassxc-csv"
    case onePasswordCSV = "1password-csv"
    case chromeCSV = "chrome-csv"
    case firefoxCSV = "firefox-csv"
    case lastPassCSV = "lastpass-csv"
    /// 1Password 1PUX (a zip with export.data).
    case onePUX = "1password-1pux"
    /// KeePass KDBX 3.1 / 4.x database (needs its password or key file).
    case kdbx = "kdbx"
}

/// What an import produced. `skipped` counts items of types the vault cannot hold
/// (cards, identities, SSH keys, archived or recycled items) by type: never silently dropped.
public struct ImportResult: Sendable {
    public var format: ImportFormat
    public var items: [VaultItem]
    public var skipped: [String: Int]
    public var warnings: [VaultError]
    /// Data inside imported items that the vault does not keep (attachments, passkeys,
    /// linked fields, …; docs/vault-import.md lists them per format), by kind: listed in
    /// the import summary, never dropped silently.
    public var notKept: [String: Int] = [:]
    /// Attachments of imported items (the vault holds no files), each named
    /// `<item title> / <file name>` in source order: counted as `attachment` in `notKept`
    /// and named one by one in the import summary.
    public var attachments: [String] = []

    /// Skipped types left out on purpose — deleted or archived items, not live ones — as
    /// opposed to types the vault cannot hold (docs/vault-import.md, "Skipped items").
    public static let leftOutOnPurpose: Set<String> = ["recycle bin", "archived", "trashed", "deleted"]

    /// Why `n` skipped items of `type` were not imported, as the CLI and the report say it.
    public static func skipReason(_ type: String) -> String {
        leftOutOnPurpose.contains(type)
            ? "left out on purpose (deleted or archived, not items in use)"
            : "not supported (the vault holds logins and notes only)"
    }

    /// Counts `n` pieces of data of `kind` that the vault does not keep.
    mutating func notKeep(_ kind: String, _ n: Int = 1) {
        if n > 0 { notKept[kind, default: 0] += n }
    }

    /// Records an attachment of `title` that is not kept (counted and named).
    mutating func attachment(_ name: String, of title: String) {
        notKeep("attachment")
        attachments.append("\(URLRedaction.text(title)) / \(name.isEmpty ? "(unnamed)" : name)")
    }
}

// MARK: - Importer

public enum Importer {
    /// Reads an export file, detecting its format from its content. A KDBX database
    /// needs `credentials` (its password and/or key file).
    public static func read(url: URL, now: Date = Date(),
                            credentials: KDBXReader.Credentials? = nil) throws -> ImportResult {
        guard let data = try? Data(contentsOf: url) else {
            throw VaultError(.io, "cannot read the file", file: url.path)
        }
        if KDBXHeader.isKDBX(data) {
            guard let credentials else {
                throw VaultError(.invalidInput, "a KeePass database needs its password or key file", file: url.path)
            }
            return try KDBXReader.read(data, credentials: credentials, file: url.path, now: now)
        }
        return try read(data: data, file: url.path, now: now)
    }

    /// Whether the bytes are a KeePass KDBX database (by its two signatures).
    public static func isKDBX(_ data: Data) -> Bool { KDBXHeader.isKDBX(data) }

    /// Reads export bytes; `file` names the input in errors; `now` stamps items without dates.
    public static func read(data: Data, file: String? = nil, now: Date = Date()) throws -> ImportResult {
        if KDBXHeader.isKDBX(data) {
            throw VaultError(.invalidInput, "a KeePass database needs its password or key file", file: file)
        }
        if OnePUX.isZip(data) { return try OnePUX.read(data, file: file, now: now) }
        if let (line, message) = UTF8Check.problem(data) {   // (before the format is known: at its line)
            throw VaultError(.invalidInput, message, file: file, line: line)
        }
        let text = String(decoding: data, as: UTF8.self)
        let format = try detect(text, file: file)
        switch format {
        case .bitwardenJSON: return try BitwardenJSON.read(data, file: file, now: now)
        case .keepassXML: return try KeePassXML.read(data, file: file, now: now)
        default: return try CSVImport.read(try CSVTable(text: text, file: file), format: format, file: file, now: now)
        }
    }

    /// The format of an export, from its first bytes / JSON keys / CSV header row.
    public static func detect(_ text: String, file: String? = nil) throws -> ImportFormat {
        let trimmed = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if trimmed.hasPrefix("{") {
            let obj: JNode
            let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text   // (lines as in the file)
            do { obj = try JSONReader.document(body, file: file ?? "JSON", integers: true) } catch {
                // The scanner's own position and reason (docs/json-lines.md), not a bare refusal.
                throw VaultError(.invalidInput, error.message, file: file, line: error.line, column: error.column)
            }
            guard obj.members != nil else {
                throw VaultError(.invalidInput, "JSON that is not an object: not a supported export", file: file)
            }
            if obj["encrypted"]?.looseBool == true {
                throw VaultError(.unsupported, "an encrypted Bitwarden export: export it unencrypted (JSON) instead",
                                 file: file)
            }
            if obj["items"]?.items != nil { return .bitwardenJSON }
            throw VaultError(.unsupported, "JSON without an 'items' list is not a supported export", file: file)
        }
        if trimmed.hasPrefix("<") {
            if trimmed.contains("<KeePassFile") { return .keepassXML }
            throw VaultError(.unsupported, "XML that is not a KeePass 2.x export", file: file)
        }
        let firstLine = (try? CSVTable(text: headerRow(text), file: file))?.rows.first?.fields ?? []
        let header = Set(firstLine.map { $0.trimmingWhitespace().lowercased() })
        if header.isSuperset(of: ["login_uri", "login_username", "login_password", "type", "name"]) {
            return .bitwardenCSV
        }
        // before Chrome: LastPass's header also holds name, url, username, password
        if header.isSuperset(of: ["url", "username", "password", "extra", "name", "grouping"]) { return .lastPassCSV }
        if header.isSuperset(of: ["guid", "timepasswordchanged", "url", "username", "password"]) { return .firefoxCSV }
        if header.isSuperset(of: ["group", "title", "username", "password", "url", "notes"]) { return .keepassxcCSV }
        if header.isSuperset(of: ["title", "url", "username", "password", "otpauth"]) { return .onePasswordCSV }
        if header.isSuperset(of: ["name", "url", "username", "password"]) { return .chromeCSV }
        throw VaultError(.unsupported, "unrecognised export: the header row matches none of Bitwarden, LastPass, "
                         + "KeePassXC, 1Password, Chrome or Firefox CSV", file: file, line: 1)
    }

    // MARK: Shared helpers

    /// The CSV text up to the first line feed outside quotes (the header row), by bytes:
    /// Swift treats CR LF as one `Character`, so splitting at "\n" misses CRLF files.
    static func headerRow(_ text: String) -> String {
        var quoted = false
        var end = text.utf8.endIndex
        for i in text.utf8.indices {
            let b = text.utf8[i]
            if b == 34 { quoted.toggle() } else if b == 10 && !quoted { end = i; break }
        }
        return String(decoding: text.utf8[..<end], as: UTF8.self)
    }

    /// An ISO 8601 date (``ISODate``), nil when empty or unreadable.
    static func date(_ s: String?) -> Date? {
        guard let s = s?.trimmingWhitespace(), !s.isEmpty else { return nil }
        return ISODate.parse(s)
    }

    /// Milliseconds since 1970 as text (Firefox): nil when empty; NaN, infinite or
    /// outside years 1–9999 is an error naming the line.
    static func epochMilliseconds(_ s: String, file: String?, line: Int?) throws -> Date? {
        let t = s.trimmingWhitespace()
        guard !t.isEmpty else { return nil }
        guard let v = Double(t), v.isFinite, abs(v) <= 253_402_300_799_000 else {
            throw VaultError(.invalidInput, "'\(t.prefix(40))' is not a date in milliseconds since 1970 "
                             + "(NaN, infinite or out of range)", file: file, line: line)
        }
        return Date(timeIntervalSince1970: v / 1000)
    }

    /// The host of a URL: never its user-info, path, query or fragment, and never the
    /// raw text of a URL that does not parse (``URLRedaction/host(_:)``).
    static func host(_ url: String) -> String {
        URLRedaction.host(url)
    }

    static func entry(title: String, username: String, password: String, website: String, notes: String,
                      folder: String, created: Date?, modified: Date?, now: Date, id: UUID? = nil) -> VaultItem {
        let c = created ?? modified ?? now
        var item = VaultItem(id: id ?? UUID(), kind: .entry, title: title.isEmpty ? host(website) : title,
                             username: username, website: website,
                             password: Secret(password), details: Secret(notes), folder: folder,
                             created: c, modified: modified ?? c, passwordChanged: modified ?? c)
        if item.title.isEmpty { item.title = "(untitled)" }
        return item
    }

    /// Tags from a list written with `,` or `;` (KeePass, KeePassXC, 1Password CSV):
    /// trimmed, empty ones dropped, duplicates dropped (first kept).
    public static func tags(_ s: String) -> [String] {
        unique(s.split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimmingWhitespace() })
    }

    /// Non-empty strings without duplicates, first occurrence kept.
    static func unique(_ xs: [String]) -> [String] {
        var seen = Set<String>()
        return xs.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// `"true"`, `"1"`, `"yes"` (any case) → true.
    static func flag(_ s: String) -> Bool {
        ["true", "1", "yes"].contains(s.trimmingWhitespace().lowercased())
    }

    static func note(title: String, text: String, folder: String, created: Date?, modified: Date?, now: Date,
                     id: UUID? = nil) -> VaultItem {
        let c = created ?? modified ?? now
        return VaultItem(id: id ?? UUID(), kind: .note, title: title.isEmpty ? "(untitled)" : title, text: Secret(text),
                         folder: folder, created: c, modified: modified ?? c)
    }
}
