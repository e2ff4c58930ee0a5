#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - CSV formats

/// The CSV exports (docs/vault-import.md, "Field mapping"): one row per item, columns by
/// header name (trimmed, case-insensitive).
enum CSVImport {
    static func read(_ table: CSVTable, format: ImportFormat, file: String?, now: Date) throws -> ImportResult {
        guard let head = table.rows.first else { throw VaultError(.invalidInput, "empty file", file: file) }
        var col: [String: Int] = [:]
        for (k, name) in head.fields.enumerated() { col[name.trimmingWhitespace().lowercased()] = k }
        var result = ImportResult(format: format, items: [], skipped: [:], warnings: [])
        for row in table.rows.dropFirst() {
            if row.fields.count != head.fields.count {
                let message = "row has \(row.fields.count) fields, the header has \(head.fields.count)"
                throw VaultError(.invalidInput, message, file: file, line: row.line)
            }
            func f(_ name: String) -> String { col[name].map { row.fields[$0] } ?? "" }
            switch format {
            case .bitwardenCSV:
                let uris = Importer.unique(f("login_uri").split(separator: ",").map { $0.trimmingWhitespace() })
                var item: VaultItem
                switch f("type").lowercased() {
                case "login":
                    item = Importer.entry(title: f("name"), username: f("login_username"),
                                          password: f("login_password"), website: uris.first ?? "",
                                          notes: f("notes"), folder: f("folder"),
                                          created: nil, modified: nil, now: now)
                    item.uris = Array(uris.dropFirst())
                    item.totp = Secret(f("login_totp"))
                case "note":
                    item = Importer.note(title: f("name"), text: f("notes"), folder: f("folder"),
                                         created: nil, modified: nil, now: now)
                case let t:
                    result.skipped[t.isEmpty ? "unknown" : t, default: 0] += 1
                    continue
                }
                item.fields = bitwardenCSVFields(f("fields"))
                item.favorite = Importer.flag(f("favorite"))
                item.reprompt = Importer.flag(f("reprompt"))
                result.items.append(item)
            case .keepassxcCSV:
                // the first segment is the root group (the database's name), not a folder
                let segments = f("group").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                if segments.contains("Recycle Bin") { result.skipped["recycle bin", default: 0] += 1; continue }
                var item = Importer.entry(title: f("title"), username: f("username"), password: f("password"),
                                          website: f("url"), notes: f("notes"),
                                          folder: segments.dropFirst().joined(separator: "/"),
                                          created: Importer.date(f("created")),
                                          modified: Importer.date(f("last modified")), now: now)
                item.totp = Secret(f("totp"))
                item.tags = Importer.tags(f("tags"))
                result.items.append(item)
            case .onePasswordCSV:
                if f("archived").lowercased() == "true" { result.skipped["archived", default: 0] += 1; continue }
                var item: VaultItem
                if f("username").isEmpty && f("password").isEmpty && f("url").isEmpty && f("otpauth").isEmpty {
                    item = Importer.note(title: f("title"), text: f("notes"), folder: "",
                                         created: nil, modified: nil, now: now)
                } else {
                    item = Importer.entry(title: f("title"), username: f("username"), password: f("password"),
                                          website: f("url"), notes: f("notes"), folder: "",
                                          created: nil, modified: nil, now: now)
                    item.totp = Secret(f("otpauth"))
                }
                item.tags = Importer.tags(f("tags"))
                item.favorite = Importer.flag(f("favorite"))
                result.items.append(item)
            case .lastPassCSV:
                // secure notes have the pseudo-URL http://sn and their text in `extra`
                let folder = f("grouping").replacingAll("\\", with: "/")
                var item: VaultItem
                if f("url").lowercased() == "http://sn" {
                    item = Importer.note(title: f("name"), text: f("extra"), folder: folder,
                                         created: nil, modified: nil, now: now)
                } else {
                    item = Importer.entry(title: f("name"), username: f("username"), password: f("password"),
                                          website: f("url"), notes: f("extra"), folder: folder,
                                          created: nil, modified: nil, now: now)
                    item.totp = Secret(f("totp"))
                }
                item.favorite = f("fav") == "1"
                result.items.append(item)
            case .chromeCSV:
                result.items.append(Importer.entry(title: f("name"), username: f("username"),
                                                   password: f("password"), website: f("url"), notes: f("note"),
                                                   folder: "", created: nil, modified: nil, now: now))
            case .firefoxCSV:
                func ms(_ s: String) throws -> Date? { try Importer.epochMilliseconds(s, file: file, line: row.line) }
                let guid = f("guid").trimming(scalarsIn: "{}")
                result.items.append(Importer.entry(title: Importer.host(f("url")), username: f("username"),
                                                   password: f("password"), website: f("url"), notes: "",
                                                   folder: "", created: try ms(f("timecreated")),
                                                   modified: try ms(f("timepasswordchanged")), now: now,
                                                   id: UUID(uuidString: guid)))
            case .bitwardenJSON, .keepassXML, .kdbx, .onePUX:
                break
            }
        }
        return result
    }

    /// Bitwarden CSV's `fields` column: one `name: value` per line (the CSV cannot tell
    /// hidden fields from text ones, so all are text). A line without `": "` is a field
    /// with that name and an empty value.
    static func bitwardenCSVFields(_ s: String) -> [CustomField] {
        s.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { line in
            guard let r = line.textRange(of: ": ") else { return CustomField(name: String(line), value: "") }
            return CustomField(name: String(line[..<r.lowerBound]), value: Secret(String(line[r.upperBound...])))
        }
    }
}
