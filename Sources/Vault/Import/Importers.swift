import Foundation

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
    /// Data inside imported items that the vault does not keep (custom fields, TOTP
    /// settings, history versions, attachments, tags, expiry dates), by kind: listed in
    /// the import summary, never dropped silently.
    public var notKept: [String: Int] = [:]
}

// MARK: - Importer

public enum Importer {
    /// Reads an export file, detecting its format from its content. A KDBX database
    /// needs `credentials` (its password and/or key file).
    public static func read(url: URL, now: Date = Date(), credentials: KDBXReader.Credentials? = nil) throws -> ImportResult {
        guard let data = try? Data(contentsOf: url) else { throw VaultError(.io, "cannot read the file", file: url.path) }
        if KDBXHeader.isKDBX(data) {
            guard let credentials else { throw VaultError(.invalidInput, "a KeePass database needs its password or key file", file: url.path) }
            return try KDBXReader.read(data, credentials: credentials, file: url.path, now: now)
        }
        return try read(data: data, file: url.path, now: now)
    }

    /// Whether the bytes are a KeePass KDBX database (by its two signatures).
    public static func isKDBX(_ data: Data) -> Bool { KDBXHeader.isKDBX(data) }

    /// Reads export bytes; `file` names the input in errors; `now` stamps items without dates.
    public static func read(data: Data, file: String? = nil, now: Date = Date()) throws -> ImportResult {
        if KDBXHeader.isKDBX(data) { throw VaultError(.invalidInput, "a KeePass database needs its password or key file", file: file) }
        if OnePUX.isOnePUX(data) { return try OnePUX.read(data, file: file, now: now) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw VaultError(.invalidInput, "the file is not UTF-8 text", file: file)
        }
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
            guard let obj = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                throw VaultError(.invalidInput, "JSON that cannot be read", file: file)
            }
            if obj["encrypted"] as? Bool == true {
                throw VaultError(.unsupported, "an encrypted Bitwarden export: export it unencrypted (JSON) instead", file: file)
            }
            if obj["items"] is [Any] { return .bitwardenJSON }
            throw VaultError(.unsupported, "JSON without an 'items' list is not a supported export", file: file)
        }
        if trimmed.hasPrefix("<") {
            if trimmed.contains("<KeePassFile") { return .keepassXML }
            throw VaultError(.unsupported, "XML that is not a KeePass 2.x export", file: file)
        }
        let firstLine = (try? CSVTable(text: headerRow(text), file: file))?.rows.first?.fields ?? []
        let header = Set(firstLine.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        if header.isSuperset(of: ["login_uri", "login_username", "login_password", "type", "name"]) { return .bitwardenCSV }
        // before Chrome: LastPass's header also holds name, url, username, password
        if header.isSuperset(of: ["url", "username", "password", "extra", "name", "grouping"]) { return .lastPassCSV }
        if header.isSuperset(of: ["guid", "timepasswordchanged", "url", "username", "password"]) { return .firefoxCSV }
        if header.isSuperset(of: ["group", "title", "username", "password", "url", "notes"]) { return .keepassxcCSV }
        if header.isSuperset(of: ["title", "url", "username", "password", "otpauth"]) { return .onePasswordCSV }
        if header.isSuperset(of: ["name", "url", "username", "password"]) { return .chromeCSV }
        throw VaultError(.unsupported, "unrecognised export: the header row matches none of Bitwarden, LastPass, KeePassXC, 1Password, Chrome or Firefox CSV", file: file, line: 1)
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
        guard let s = s?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { return nil }
        return ISODate.parse(s)
    }

    /// Milliseconds since 1970 as text (Firefox): nil when empty; NaN, infinite or
    /// outside years 1–9999 is an error naming the line.
    static func epochMilliseconds(_ s: String, file: String?, line: Int?) throws -> Date? {
        let t = s.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty else { return nil }
        guard let v = Double(t), v.isFinite, abs(v) <= 253_402_300_799_000 else {
            throw VaultError(.invalidInput, "'\(t.prefix(40))' is not a date in milliseconds since 1970 (NaN, infinite or out of range)", file: file, line: line)
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

    static func note(title: String, text: String, folder: String, created: Date?, modified: Date?, now: Date, id: UUID? = nil) -> VaultItem {
        let c = created ?? modified ?? now
        return VaultItem(id: id ?? UUID(), kind: .note, title: title.isEmpty ? "(untitled)" : title, text: Secret(text),
                         folder: folder, created: c, modified: modified ?? c)
    }
}

// MARK: - CSV formats

enum CSVImport {
    static func read(_ table: CSVTable, format: ImportFormat, file: String?, now: Date) throws -> ImportResult {
        guard let head = table.rows.first else { throw VaultError(.invalidInput, "empty file", file: file) }
        var col: [String: Int] = [:]
        for (k, name) in head.fields.enumerated() { col[name.trimmingCharacters(in: .whitespaces).lowercased()] = k }
        var result = ImportResult(format: format, items: [], skipped: [:], warnings: [])
        for row in table.rows.dropFirst() {
            if row.fields.count != head.fields.count {
                throw VaultError(.invalidInput, "row has \(row.fields.count) fields, the header has \(head.fields.count)", file: file, line: row.line)
            }
            func f(_ name: String) -> String { col[name].map { row.fields[$0] } ?? "" }
            switch format {
            case .bitwardenCSV:
                switch f("type").lowercased() {
                case "login":
                    result.items.append(Importer.entry(title: f("name"), username: f("login_username"), password: f("login_password"),
                                                       website: f("login_uri").split(separator: ",").first.map(String.init) ?? "",
                                                       notes: f("notes"), folder: f("folder"), created: nil, modified: nil, now: now))
                case "note":
                    result.items.append(Importer.note(title: f("name"), text: f("notes"), folder: f("folder"), created: nil, modified: nil, now: now))
                case let t:
                    result.skipped[t.isEmpty ? "unknown" : t, default: 0] += 1
                }
            case .keepassxcCSV:
                let group = f("group")
                if group.split(separator: "/").contains(where: { $0 == "Recycle Bin" }) { result.skipped["recycle bin", default: 0] += 1; continue }
                result.items.append(Importer.entry(title: f("title"), username: f("username"), password: f("password"), website: f("url"),
                                                   notes: f("notes"), folder: group, created: Importer.date(f("created")),
                                                   modified: Importer.date(f("last modified")), now: now))
            case .onePasswordCSV:
                if f("archived").lowercased() == "true" { result.skipped["archived", default: 0] += 1; continue }
                if f("username").isEmpty && f("password").isEmpty && f("url").isEmpty {
                    result.items.append(Importer.note(title: f("title"), text: f("notes"), folder: f("tags"), created: nil, modified: nil, now: now))
                } else {
                    result.items.append(Importer.entry(title: f("title"), username: f("username"), password: f("password"), website: f("url"),
                                                       notes: f("notes"), folder: f("tags"), created: nil, modified: nil, now: now))
                }
            case .lastPassCSV:
                // secure notes have the pseudo-URL http://sn and their text in `extra`
                let folder = f("grouping").replacingOccurrences(of: "\\", with: "/")
                if f("url").lowercased() == "http://sn" {
                    result.items.append(Importer.note(title: f("name"), text: f("extra"), folder: folder, created: nil, modified: nil, now: now))
                } else {
                    result.items.append(Importer.entry(title: f("name"), username: f("username"), password: f("password"), website: f("url"),
                                                       notes: f("extra"), folder: folder, created: nil, modified: nil, now: now))
                    if !f("totp").isEmpty { result.notKept["TOTP secret", default: 0] += 1 }
                }
                if f("fav") == "1" { result.notKept["favourite flag", default: 0] += 1 }
            case .chromeCSV:
                result.items.append(Importer.entry(title: f("name"), username: f("username"), password: f("password"), website: f("url"),
                                                   notes: f("note"), folder: "", created: nil, modified: nil, now: now))
            case .firefoxCSV:
                func ms(_ s: String) throws -> Date? { try Importer.epochMilliseconds(s, file: file, line: row.line) }
                let guid = f("guid").trimmingCharacters(in: CharacterSet(charactersIn: "{}"))
                result.items.append(Importer.entry(title: Importer.host(f("url")), username: f("username"), password: f("password"),
                                                   website: f("url"), notes: "", folder: "", created: try ms(f("timecreated")),
                                                   modified: try ms(f("timepasswordchanged")), now: now, id: UUID(uuidString: guid)))
            case .bitwardenJSON, .keepassXML, .kdbx, .onePUX:
                break
            }
        }
        return result
    }
}

// MARK: - Bitwarden JSON

enum BitwardenJSON {
    static func read(_ data: Data, file: String?, now: Date) throws -> ImportResult {
        guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let items = obj["items"] as? [[String: Any]] else {
            throw VaultError(.invalidInput, "Bitwarden JSON without an items list", file: file)
        }
        var folders: [String: String] = [:]
        for f in obj["folders"] as? [[String: Any]] ?? [] {
            if let id = f["id"] as? String { folders[id] = f["name"] as? String ?? "" }
        }
        var result = ImportResult(format: .bitwardenJSON, items: [], skipped: [:], warnings: [])
        let typeNames = [3: "card", 4: "identity", 5: "ssh key"]
        for (k, it) in items.enumerated() {
            let type = it["type"] as? Int ?? 0
            let name = it["name"] as? String ?? ""
            let notes = it["notes"] as? String ?? ""
            let folder = (it["folderId"] as? String).flatMap { folders[$0] } ?? ""
            let created = Importer.date(it["creationDate"] as? String)
            let modified = Importer.date(it["revisionDate"] as? String)
            let id = (it["id"] as? String).flatMap(UUID.init(uuidString:))
            switch type {
            case 1:
                let login = it["login"] as? [String: Any] ?? [:]
                let uri = ((login["uris"] as? [[String: Any]])?.first?["uri"] as? String) ?? ""
                result.items.append(Importer.entry(title: name, username: login["username"] as? String ?? "",
                                                   password: login["password"] as? String ?? "", website: uri, notes: notes,
                                                   folder: folder, created: created, modified: modified, now: now, id: id))
            case 2:
                result.items.append(Importer.note(title: name, text: notes, folder: folder, created: created, modified: modified, now: now, id: id))
            default:
                result.skipped[typeNames[type] ?? "type \(type)", default: 0] += 1
                if typeNames[type] == nil {
                    result.warnings.append(VaultError(.unsupported, "item \(k + 1) has unknown type \(type)", file: file))
                }
            }
        }
        return result
    }
}
