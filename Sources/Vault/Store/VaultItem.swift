#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Items

/// One vault item: a login entry or a secure note. Every item has a UUID, creation and
/// modification times, and becomes a *tombstone* (``deleted``, secrets wiped) when
/// removed, so copies of a vault merge item by item (see ``Vault/merge(_:)``).
///
/// Secret fields are ``Secret``s: printing an item never shows them.
public struct VaultItem: Sendable, Codable, Equatable, Identifiable {
    public enum Kind: String, Sendable, Codable { case entry, note }

    public var id: UUID
    public var kind: Kind
    /// Times are whole milliseconds since 1970 (UTC).
    public var created: Date
    public var modified: Date
    /// When the password last changed (entries); starts at `created`.
    public var passwordChanged: Date
    public var deleted: Bool
    public var title: String
    public var username: String
    public var website: String
    public var password: Secret
    /// The entry's free-text description (may hold secrets, so it is one).
    public var details: Secret
    /// A note's text.
    public var text: Secret
    /// Folder path, segments joined by `/` ("" if none; never the KeePass root group).
    public var folder: String
    /// The TOTP secret: an `otpauth://` URI or a bare base32 key ("" if none). A secret.
    public var totp: Secret = ""
    /// Custom fields in their source order (``CustomField``; values are secrets).
    public var fields: [CustomField] = []
    /// Further URIs beyond ``website`` (which stays the first one).
    public var uris: [String] = []
    /// Earlier passwords, oldest first (``PasswordHistoryEntry``; secrets).
    public var history: [PasswordHistoryEntry] = []
    /// Tags in their source order, without duplicates.
    public var tags: [String] = []
    /// When the entry expires (nil: never), whole milliseconds.
    public var expires: Date?
    /// Marked as a favourite.
    public var favorite: Bool = false
    /// Ask for the master password again before showing it (Bitwarden's "re-prompt").
    public var reprompt: Bool = false
    /// Left out of every health-report check, count and list (KeePass's `QualityCheck`
    /// off, KeePassXC's "exclude from reports").
    public var excludeFromReports: Bool = false

    public init(id: UUID = UUID(), kind: Kind, title: String, username: String = "", website: String = "",
                password: Secret = "", details: Secret = "", text: Secret = "", folder: String = "",
                created: Date = Date(), modified: Date? = nil, passwordChanged: Date? = nil) {
        self.id = id
        self.kind = kind
        self.title = title
        self.username = username
        self.website = website
        self.password = password
        self.details = details
        self.text = text
        self.folder = folder
        self.created = created.wholeMilliseconds
        self.modified = (modified ?? created).wholeMilliseconds
        self.passwordChanged = (passwordChanged ?? created).wholeMilliseconds
        self.deleted = false
    }

    /// An entry (login).
    public static func entry(title: String, username: String = "", password: Secret, website: String = "",
                             details: Secret = "", at date: Date = Date()) -> VaultItem {
        VaultItem(kind: .entry, title: title, username: username, website: website, password: password,
                  details: details, created: date)
    }

    /// A secure note.
    public static func note(title: String, text: Secret, at date: Date = Date()) -> VaultItem {
        VaultItem(kind: .note, title: title, text: text, created: date)
    }

    /// This item as a tombstone: secrets and names wiped, `deleted` set, `modified` = `date`.
    public func tombstone(at date: Date) -> VaultItem {
        var t = self
        t.deleted = true
        t.title = ""; t.username = ""; t.website = ""; t.folder = ""
        t.password = ""; t.details = ""; t.text = ""
        t.totp = ""; t.fields = []; t.uris = []; t.history = []; t.tags = []; t.expires = nil
        t.favorite = false; t.reprompt = false; t.excludeFromReports = false
        t.modified = date.wholeMilliseconds
        return t
    }
}

extension Date {
    /// Rounded to whole milliseconds (what the vault stores).
    public var wholeMilliseconds: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

// MARK: - Merge

/// What ``Vault/merge(_:)`` did. Ids only: no titles, no secrets.
public struct MergeReport: Sendable, Codable, Equatable {
    /// Items only the other copy had.
    public var added: [UUID] = []
    /// Items whose other version won (newer, or the tie-break).
    public var updated: [UUID] = []
    /// Items the other copy deleted (their tombstone won).
    public var deleted: [UUID] = []
    /// Items where both copies differed: the winner is in `updated`/`deleted` or kept.
    public var conflicts: [UUID] = []
    /// Items where the local version won over a different other version.
    public var keptLocal: [UUID] = []

    public var changed: Bool { !(added.isEmpty && updated.isEmpty && deleted.isEmpty) }
}

enum MergeRule {
    /// The winner of two versions of the same item: the later `modified`; on a tie a
    /// tombstone; on a tie the larger canonical JSON encoding (so both sides agree).
    static func winner(_ a: VaultItem, _ b: VaultItem) -> VaultItem {
        if a.modified != b.modified { return a.modified > b.modified ? a : b }
        if a.deleted != b.deleted { return a.deleted ? a : b }
        let ea = (try? Canonical.encode(a)) ?? Data()
        let eb = (try? Canonical.encode(b)) ?? Data()
        return ea.lexicographicallyPrecedes(eb) ? b : a
    }
}

enum Canonical {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .millisecondsSince1970
        return e
    }
    static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .millisecondsSince1970
        return d
    }
    static func encode<T: Encodable>(_ v: T) throws -> Data { try encoder().encode(v) }
}
