#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Extra item data (TOTP, fields, URIs, history, tags, expiry, flags)

/// A named value on an item beyond the standard fields (Bitwarden's custom fields,
/// KeePass's custom strings, 1Password's section fields). The value is a ``Secret``
/// whether hidden or not: only `hidden` decides how an interface shows it (masked).
public struct CustomField: Sendable, Codable, Equatable {
    public var name: String
    public var value: Secret
    /// Concealed in the source manager (Bitwarden type 1, KeePass `Protected`, 1Password
    /// `concealed`): never shown without `--reveal`, never in any report.
    public var hidden: Bool

    public init(name: String, value: Secret, hidden: Bool = false) {
        self.name = name
        self.value = value
        self.hidden = hidden
    }
}

/// One earlier password of an entry and when it stopped being current.
public struct PasswordHistoryEntry: Sendable, Codable, Equatable {
    public var password: Secret
    /// When this password was replaced (Bitwarden `lastUsedDate`, the KeePass history
    /// version's modification time, 1Password's `time`), whole milliseconds.
    public var changed: Date

    public init(password: Secret, changed: Date) {
        self.password = password
        self.changed = changed.wholeMilliseconds
    }
}

// MARK: - Coding

/// The ITEM JSON (docs/vault-format.md): the eleven original keys always, each newer key
/// only when it differs from its default — so an item without the newer data encodes
/// byte for byte as before (the merge tie-break and sealed blobs compare encodings), and
/// an item written before these keys existed decodes with the defaults.
extension VaultItem {
    enum CodingKeys: String, CodingKey {
        case id, kind, created, modified, passwordChanged, deleted, title, username, website, password, details, text,
            folder
        case totp, fields, uris, history, tags, expires, favorite, reprompt, excludeFromReports
    }

    // One line a key, in both directions: the same shape on purpose (each key's default
    // and presence rule is read off its own line; synthesised Codable has neither).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(UUID.self, forKey: .id)
        kind = try c.decode(Kind.self, forKey: .kind)
        created = try c.decode(Date.self, forKey: .created)
        modified = try c.decode(Date.self, forKey: .modified)
        passwordChanged = try c.decode(Date.self, forKey: .passwordChanged)
        deleted = try c.decode(Bool.self, forKey: .deleted)
        title = try c.decode(String.self, forKey: .title)
        username = try c.decode(String.self, forKey: .username)
        website = try c.decode(String.self, forKey: .website)
        password = try c.decode(Secret.self, forKey: .password)
        details = try c.decode(Secret.self, forKey: .details)
        text = try c.decode(Secret.self, forKey: .text)
        folder = try c.decode(String.self, forKey: .folder)
        totp = try c.decodeIfPresent(Secret.self, forKey: .totp) ?? ""
        fields = try c.decodeIfPresent([CustomField].self, forKey: .fields) ?? []
        uris = try c.decodeIfPresent([String].self, forKey: .uris) ?? []
        history = try c.decodeIfPresent([PasswordHistoryEntry].self, forKey: .history) ?? []
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        expires = try c.decodeIfPresent(Date.self, forKey: .expires)
        favorite = try c.decodeIfPresent(Bool.self, forKey: .favorite) ?? false
        reprompt = try c.decodeIfPresent(Bool.self, forKey: .reprompt) ?? false
        excludeFromReports = try c.decodeIfPresent(Bool.self, forKey: .excludeFromReports) ?? false
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(created, forKey: .created)
        try c.encode(modified, forKey: .modified)
        try c.encode(passwordChanged, forKey: .passwordChanged)
        try c.encode(deleted, forKey: .deleted)
        try c.encode(title, forKey: .title)
        try c.encode(username, forKey: .username)
        try c.encode(website, forKey: .website)
        try c.encode(password, forKey: .password)
        try c.encode(details, forKey: .details)
        try c.encode(text, forKey: .text)
        try c.encode(folder, forKey: .folder)
        if !totp.isEmpty { try c.encode(totp, forKey: .totp) }
        if !fields.isEmpty { try c.encode(fields, forKey: .fields) }
        if !uris.isEmpty { try c.encode(uris, forKey: .uris) }
        if !history.isEmpty { try c.encode(history, forKey: .history) }
        if !tags.isEmpty { try c.encode(tags, forKey: .tags) }
        if let expires { try c.encode(expires, forKey: .expires) }
        if favorite { try c.encode(favorite, forKey: .favorite) }
        if reprompt { try c.encode(reprompt, forKey: .reprompt) }
        if excludeFromReports { try c.encode(excludeFromReports, forKey: .excludeFromReports) }
    }
}
